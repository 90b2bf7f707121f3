package io.basalt.broker.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.filter.expression.BooleanExpression;
import org.apache.rocketmq.filter.expression.EvaluationContext;
import org.apache.rocketmq.filter.parser.SelectorParser;
import org.junit.jupiter.api.Test;

/**
 * Basalt's SQL92 filter against RocketMQ 5.2.0's own parser and expressions (rocketmq-filter): for each
 * expression, both accept or both refuse it, and for each message both match or both do not (RocketMQ's
 * broker treats an evaluation error or a non-TRUE result as no match).
 */
class SqlFilterCompatibilityTest {

    private static final List<String> EXPRESSIONS = List.of(
        "a > 5", "a >= 5", "a < 5", "a <= 5", "a = 5", "a <> 5", "5 < a", "a > 5.5", "a > 2.5", "a > -3", "a = 5L",
        "a = 10000000000", "a > 1E2", "a < .5", "a > b", "a = b", "region = 'eu'", "region <> 'eu'", "q = 'it''s'",
        "flag = TRUE", "flag = FALSE", "TRUE", "FALSE", "flag", "NOT flag", "a IS NULL", "a IS NOT NULL",
        "a is not null and b is null", "a BETWEEN 1 AND 3", "a NOT BETWEEN 1 AND 3", "a BETWEEN 1 AND 3 AND b = 'x'",
        "a BETWEEN -5 AND -1", "TAGS IN ('TagA', 'TagB')", "TAGS NOT IN ('TagA')", "TAGS IN ('a','b','c','d','e','f')",
        "s CONTAINS 'bc'", "s NOT CONTAINS 'bc'", "s STARTSWITH 'ab'", "s NOT STARTSWITH 'ab'", "s ENDSWITH 'cd'",
        "s NOT ENDSWITH 'cd'", "s CONTAINS ''", "s NOT CONTAINS ''", "NOT (s NOT CONTAINS 'x')",
        "a = 1 OR b = 1 AND c = 1", "(a = 1 OR b = 1) AND c = 1", "NOT (a = 1) AND b = 1", "NOT a = 1 OR b = 1",
        "a > 1 = TRUE", "a > 5 AND region = 'eu'", "-a < 0 OR a > 0", "a > +5", "a > - -5", "'x' <> a", "'x' = a",
        "NOT ('x' = a)", "a = 5 OR b = 'x'", "b = 'x' OR a = 5", "a > 5 OR b = 1", "NOT (a > 5 AND b = 1)",
        "a > 5 /* c */ AND\n b = 1 -- rest\n", "a = 1 b = 2", "a = 1)", "a + 1 > 2", "a LIKE 'x%'", "a IS TRUE",
        "1 = TRUE", "a = TRUE", "a BETWEEN 1 AND 1", "a NOT BETWEEN 5 AND 1", "a = 9223372036854775807", "5 IS NULL",
        "5 CONTAINS 'x'", "and1 = 1", "a = -9223372036854775807", "flag = 'true'", "TRUE = flag", "a = 1.0",
        "a > 1 AND a < 10 OR b IS NULL", "NOT NOT flag", "NOT (a IS NULL)", "a <> b", "a = 5 = TRUE",
        // refused ones
        "", "a >", "a > AND b", "a = 1 AND", "(a = 1", "a == 1", "a != 1", "a && b", "a = \"x\"", "a = 'unterminated",
        "a IN ()", "a IN (1, 2)", "a.b = 1", "1a = 1", "007 = a", "5", "'x'", "5 AND a = 1", "a = NULL", "NULL = a",
        "a <> NULL", "TRUE = 1", "a > 'x'", "a > TRUE", "a > NULL", "NOT a > 5", "(a = 1) > 5", "a BETWEEN 5 AND 1",
        "a BETWEEN NULL AND 1", "a BETWEEN 'a' AND 'b'", "5 IN ('a')", "9223372036854775808 = a", "a = 0.0", "a = 1E400",
        "NOT 5", "a OR 5", "- 'x' > 1", "a = 1 OR", "a IN ('x'", "x CONTAINS 5", "a BETWEEN 1", "a = 1 -- no line end");

    private static final List<Map<String, String>> MESSAGES = messages();

    private static List<Map<String, String>> messages() {
        String[][] sets = {
            {}, {"a", "6"}, {"a", "5"}, {"a", "4"}, {"a", "x"}, {"a", "7.5"}, {"a", "-2"}, {"a", "3", "b", "1"},
            {"a", "10", "b", "9"}, {"a", "x", "b", "x"}, {"a", "1", "b", "2", "c", "1"}, {"a", "10000000000"},
            {"a", "0.25"}, {"region", "eu"}, {"region", "EU"}, {"a", "6", "region", "eu"}, {"a", "6", "region", "us"},
            {"q", "it's"}, {"flag", "true"}, {"flag", "TRUE"}, {"flag", "no"}, {"TAGS", "TagA"}, {"TAGS", "f"},
            {"s", "abcd"}, {"s", "xyz"}, {"b", "x"}, {"b", "1"}, {"a", "2", "b", "x"}, {"a", "1"}, {"and1", "1"},
            {"a", "9223372036854775807"}, {"a", "1.0"}, {"a", "true", "b", "true"}};
        List<Map<String, String>> out = new ArrayList<>();
        for (String[] kv : sets) {
            Map<String, String> m = new HashMap<>();
            for (int i = 0; i < kv.length; i += 2) {
                m.put(kv[i], kv[i + 1]);
            }
            out.add(m);
        }
        return out;
    }

    @Test
    void everyExpressionIsAcceptedOrRefusedAndMatchesAsInRocketMq() {
        List<String> differences = new ArrayList<>();
        for (String sql : EXPRESSIONS) {
            BooleanExpression theirs;
            try {
                theirs = SelectorParser.parse(sql);
            } catch (Throwable e) {
                theirs = null;
            }
            SqlFilter ours;
            try {
                ours = SqlFilter.compile(sql);
            } catch (SqlFilterException e) {
                ours = null;
            }
            if ((theirs == null) != (ours == null)) {
                differences.add("[" + sql + "] RocketMQ " + (theirs == null ? "refuses" : "accepts") + ", Basalt "
                    + (ours == null ? "refuses" : "accepts"));
                continue;
            }
            if (ours == null) {
                continue;
            }
            for (Map<String, String> message : MESSAGES) {
                boolean expected = rocketMqMatches(theirs, message);
                if (ours.matches(message) != expected) {
                    differences.add("[" + sql + "] on " + message + ": RocketMQ " + expected);
                }
            }
        }
        assertEquals(List.of(), differences);
    }

    /** RocketMQ's ExpressionMessageFilter.isMatchedByCommitLog: an error or a non-Boolean result does not match. */
    private static boolean rocketMqMatches(BooleanExpression expression, Map<String, String> properties) {
        try {
            Object result = expression.evaluate(new EvaluationContext() {
                @Override
                public Object get(String name) {
                    return properties.get(name);
                }

                @Override
                public Map<String, Object> keyValues() {
                    return new HashMap<>(properties);
                }
            });
            return result instanceof Boolean b && b;
        } catch (Throwable e) {
            return false;
        }
    }
}
