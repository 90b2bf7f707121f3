package io.basalt.broker.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.basalt.store.MessageProperties;
import org.junit.jupiter.api.Test;

/**
 * RocketMQ 5.2.0's SQL92 selector grammar and semantics: each operator, precedence, null handling,
 * number/string/boolean coercion, and the expressions refused when compiled.
 */
class SqlFilterTest {

    private static Map<String, String> props(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static boolean matches(String sql, String... kv) {
        try {
            return SqlFilter.compile(sql).matches(props(kv));
        } catch (SqlFilterException e) {
            throw new AssertionError(sql + " should compile: " + e.getMessage(), e);
        }
    }

    private static void refused(String sql) {
        SqlFilterException e = assertThrows(SqlFilterException.class, () -> SqlFilter.compile(sql), sql);
        assertTrue(e.getMessage().startsWith("Invalid MessageSelector."), e.getMessage());
    }

    @Test
    void comparisonsOfANumericPropertyWithNumbers() {
        assertTrue(matches("a > 5", "a", "6"));
        assertFalse(matches("a > 5", "a", "5"));
        assertTrue(matches("a >= 5", "a", "5"));
        assertTrue(matches("a < 5", "a", "4"));
        assertFalse(matches("a < 5", "a", "5"));
        assertTrue(matches("a <= 5", "a", "5"));
        assertTrue(matches("a = 5", "a", "5"));
        assertFalse(matches("a = 5", "a", "6"));
        assertTrue(matches("a <> 5", "a", "6"));
        assertFalse(matches("a <> 5", "a", "5"));
        assertTrue(matches("5 < a", "a", "6"), "a literal on the left");
        assertTrue(matches("a > 5.5", "a", "5.75"));
        assertTrue(matches("a > 2.5", "a", "3"), "an integer string against a double");
        assertTrue(matches("a > -3", "a", "-2"));
        assertTrue(matches("a = 10000000000", "a", "10000000000"), "longs");
        assertTrue(matches("a = 5L", "a", "5"));
        assertTrue(matches("a > 1E2", "a", "101"));
        assertTrue(matches("a < .5", "a", "0.25"));
    }

    @Test
    void aStringThatIsNotOfTheLiteralsTypeFailsTheWholeEvaluation() {
        // RocketMQ converts the property to the literal's type; a value that does not convert is an error: no match
        assertFalse(matches("a > 5", "a", "x"));
        assertFalse(matches("a > 5", "a", "7.5"), "7.5 is not an integer");
        assertFalse(matches("a = 5 OR b = 'x'", "a", "x", "b", "x"), "the error ends the evaluation, OR or not");
        assertTrue(matches("b = 'x' OR a = 5", "a", "x", "b", "x"), "OR stops at its first TRUE");
    }

    @Test
    void twoStringsCompareAsNumbersWithOrderingOperatorsAndAsTextWithEquality() {
        assertTrue(matches("a > b", "a", "10", "b", "9"), "as numbers, not as text");
        assertFalse(matches("a > b", "a", "x", "b", "y"));
        assertTrue(matches("a = b", "a", "x", "b", "x"));
        assertTrue(matches("region = 'eu'", "region", "eu"));
        assertFalse(matches("region = 'eu'", "region", "EU"), "case matters in values");
        assertTrue(matches("region <> 'eu'", "region", "us"));
        assertTrue(matches("q = 'it''s'", "q", "it's"), "'' is a quote");
    }

    @Test
    void booleansAndStrings() {
        assertTrue(matches("flag = TRUE", "flag", "true"));
        assertTrue(matches("flag = TRUE", "flag", "TRUE"), "Boolean.parseBoolean ignores case");
        assertFalse(matches("flag = TRUE", "flag", "yes"));
        assertTrue(matches("flag = FALSE", "flag", "no"), "anything but true is false");
        assertTrue(matches("TRUE"));
        assertFalse(matches("FALSE"));
        assertFalse(matches("flag", "flag", "true"), "a bare property is a string, never TRUE");
        assertTrue(matches("NOT flag", "flag", "true"), "...so NOT of it is TRUE when present");
        assertFalse(matches("NOT flag"), "and unknown when absent");
    }

    @Test
    void aMissingPropertyIsUnknownAndNeverMatches() {
        assertFalse(matches("a > 5"));
        assertFalse(matches("a = 5"));
        assertFalse(matches("a <> 5"), "unknown, not TRUE");
        assertFalse(matches("NOT (a > 5)"), "NOT unknown is unknown");
        assertFalse(matches("a IN ('x')"));
        assertFalse(matches("a NOT IN ('x')"));
        assertFalse(matches("a BETWEEN 1 AND 3"));
        assertFalse(matches("a NOT BETWEEN 1 AND 3"));
        assertFalse(matches("a CONTAINS 'x'"));
        assertFalse(matches("a NOT CONTAINS 'x'"), "FALSE for the NOT form too, as in RocketMQ");
        assertTrue(matches("NOT (a NOT CONTAINS 'x')"), "...so NOT of it is TRUE");
        assertFalse(matches("a > 5 AND b = 1", "b", "1"));
        assertTrue(matches("a > 5 OR b = 1", "b", "1"), "unknown OR TRUE is TRUE");
        assertFalse(matches("a > 5 OR b = 1", "b", "2"), "unknown OR FALSE is unknown");
        assertTrue(matches("NOT (a > 5 AND b = 1)", "b", "2"), "unknown AND FALSE is FALSE");
        assertTrue(matches("'x' <> a"), "RocketMQ: a value equal to a missing property is FALSE, so <> is TRUE");
        assertFalse(matches("a = ''", "a", ""), "an empty value is no value");
    }

    @Test
    void isNullAndIsNotNull() {
        assertTrue(matches("a IS NULL"));
        assertFalse(matches("a IS NULL", "a", "1"));
        assertTrue(matches("a IS NOT NULL", "a", "1"));
        assertFalse(matches("a IS NOT NULL"));
        assertTrue(matches("a is not null and b is null", "a", "1"), "keywords in any case");
    }

    @Test
    void betweenIsInclusive() {
        assertTrue(matches("a BETWEEN 1 AND 3", "a", "1"));
        assertTrue(matches("a BETWEEN 1 AND 3", "a", "3"));
        assertFalse(matches("a BETWEEN 1 AND 3", "a", "4"));
        assertTrue(matches("a NOT BETWEEN 1 AND 3", "a", "4"));
        assertFalse(matches("a NOT BETWEEN 1 AND 3", "a", "2"));
        assertTrue(matches("a BETWEEN 1 AND 3 AND b = 'x'", "a", "2", "b", "x"), "BETWEEN takes its own AND");
        assertTrue(matches("a BETWEEN -5 AND -1", "a", "-3"));
    }

    @Test
    void inAndTagsAndKeys() {
        assertTrue(matches("TAGS IN ('TagA', 'TagB')", "TAGS", "TagB"));
        assertFalse(matches("TAGS IN ('TagA', 'TagB')", "TAGS", "TagC"));
        assertTrue(matches("TAGS NOT IN ('TagA')", "TAGS", "TagC"));
        assertFalse(matches("TAGS NOT IN ('TagA')", "TAGS", "TagA"));
        assertTrue(matches("TAGS IN ('a','b','c','d','e','f')", "TAGS", "f"), "many elements");
        assertTrue(matches("KEYS = 'k1'", "KEYS", "k1"));
    }

    @Test
    void containsStartsWithEndsWith() {
        assertTrue(matches("s CONTAINS 'bc'", "s", "abcd"));
        assertFalse(matches("s CONTAINS 'x'", "s", "abcd"));
        assertTrue(matches("s NOT CONTAINS 'x'", "s", "abcd"));
        assertTrue(matches("s STARTSWITH 'ab'", "s", "abcd"));
        assertFalse(matches("s STARTSWITH 'bc'", "s", "abcd"));
        assertTrue(matches("s NOT STARTSWITH 'bc'", "s", "abcd"));
        assertTrue(matches("s ENDSWITH 'cd'", "s", "abcd"));
        assertTrue(matches("s NOT ENDSWITH 'c'", "s", "abcd"));
        assertFalse(matches("s CONTAINS ''", "s", "abcd"), "an empty text never matches");
        assertFalse(matches("s NOT CONTAINS ''", "s", "abcd"));
    }

    @Test
    void precedenceAndAssociativity() {
        // AND binds tighter than OR
        assertTrue(matches("a = 1 OR b = 1 AND c = 1", "a", "1"));
        assertFalse(matches("(a = 1 OR b = 1) AND c = 1", "a", "1"));
        // NOT binds to its operand only
        assertTrue(matches("NOT (a = 1) AND b = 1", "a", "2", "b", "1"));
        assertTrue(matches("NOT a = 1 OR b = 1", "a", "2", "b", "1"), "(NOT a) = 1 fails, OR goes on");
        // comparisons before equality: (a > 1) = TRUE
        assertTrue(matches("a > 1 = TRUE", "a", "2"));
        assertTrue(matches("a > 5 AND region = 'eu'", "a", "6", "region", "eu"));
        assertFalse(matches("a > 5 AND region = 'eu'", "a", "6", "region", "us"));
        assertFalse(matches("a > 5 AND region = 'eu'", "a", "5", "region", "eu"));
        assertTrue(matches("-a < 0 OR a > 0", "a", "3"), "negating a string is unknown; OR goes on");
        assertTrue(matches("a > +5", "a", "6"));
        assertTrue(matches("a > - -5", "a", "6"));
    }

    @Test
    void commentsAndWhitespace() {
        assertTrue(matches("a > 5 /* big */ AND\n\tb = 1 -- the rest\n", "a", "6", "b", "1"));
    }

    @Test
    void asRocketMqTheParserStopsAfterTheFirstCompleteExpression() throws Exception {
        assertTrue(matches("a = 1 b = 2", "a", "1"), "text after a complete expression is not read");
        assertTrue(matches("a = 1)", "a", "1"));
        // so a word or operator the grammar lacks ends the expression: these are the bare property a
        assertFalse(matches("a LIKE 'x%'", "a", "xy"), "LIKE is not in RocketMQ's grammar");
        assertFalse(matches("a + 1 > 2", "a", "5"), "nor is arithmetic");
    }

    @Test
    void malformedExpressionsAreRefused() {
        refused("");
        refused("   ");
        refused("a >");
        refused("a > AND b");
        refused("a = 1 AND");
        refused("(a = 1");
        refused("a == 1");
        refused("a != 1");
        refused("a && b");
        refused("a = \"x\"");
        refused("a = 'unterminated");
        refused("a IN ()");
        refused("a IN (1, 2)");
        refused("a IS TRUE");
        refused("a.b = 1");
        refused("1a = 1");
        refused("007 = a");
    }

    @Test
    void rocketMqsCompileTimeChecksRefuse() {
        refused("5");
        refused("'x'");
        refused("5 AND a = 1");
        refused("a = NULL");
        refused("NULL = a");
        refused("a <> NULL");
        refused("TRUE = 1");
        refused("a > 'x'");
        refused("a > TRUE");
        refused("a > NULL");
        refused("NOT a > 5");
        refused("(a = 1) > 5");
        refused("a BETWEEN 5 AND 1");
        refused("a BETWEEN NULL AND 1");
        refused("a BETWEEN 'a' AND 'b'");
        refused("5 IN ('a')");
        refused("9223372036854775808 = a");
        refused("a = 0.0");
        refused("a = 1E400");
    }

    @Test
    void acceptedByRocketMqsChecks() throws Exception {
        SqlFilter.compile("1 = TRUE");
        SqlFilter.compile("a = TRUE");
        SqlFilter.compile("a BETWEEN 1 AND 1");
        SqlFilter.compile("a NOT BETWEEN 5 AND 1");
        SqlFilter.compile("a = 9223372036854775807");
        SqlFilter.compile("5 IS NULL");
        SqlFilter.compile("5 CONTAINS 'x'");
        SqlFilter.compile("and1 = 1");
    }

    @Test
    void evaluatesAgainstTheStoredPropertiesBytesReadingOnlyWhatItNames() throws Exception {
        SqlFilter filter = SqlFilter.compile("a > 5 AND region = 'eu' AND TAGS IN ('T1')");
        assertEquals(List.of("a", "region", "TAGS"), filter.propertyNames());
        assertTrue(filter.needsProperties());
        assertTrue(filter.isMatchedByConsumeQueue(12345L), "every tags code passes; the properties decide");
        assertTrue(filter.isMatchedByCommitLog(bytes("KEYS", "k", "a", "6", "region", "eu", "TAGS", "T1", "UNIQ_KEY", "u")));
        assertFalse(filter.isMatchedByCommitLog(bytes("a", "6", "region", "us", "TAGS", "T1")));
        assertFalse(filter.isMatchedByCommitLog(bytes("a", "6", "TAGS", "T1")), "region missing");
        assertFalse(filter.isMatchedByCommitLog(ByteBuffer.allocate(0)), "no properties at all");
        assertTrue(filter.isMatchedByCommitLog(bytes("a", "1", "region", "eu", "TAGS", "T1", "a", "9")),
            "a repeated name keeps its last value");
        assertTrue(SqlFilter.compile("name = 'zürich'").isMatchedByCommitLog(bytes("name", "zürich")), "UTF-8 values");
        // a view into a larger buffer, as the store hands it: only position..limit is read
        ByteBuffer big = ByteBuffer.allocate(64);
        big.put("xx".getBytes(StandardCharsets.UTF_8)).put(bytes("a", "6", "region", "eu", "TAGS", "T1")).put("yy".getBytes(StandardCharsets.UTF_8));
        ByteBuffer view = big.flip().slice(2, big.limit() - 4);
        assertTrue(filter.isMatchedByCommitLog(view));
    }

    private static ByteBuffer bytes(String... kv) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < kv.length; i += 2) {
            sb.append(kv[i]).append(MessageProperties.NAME_VALUE_SEPARATOR).append(kv[i + 1])
                .append(MessageProperties.PROPERTY_SEPARATOR);
        }
        return ByteBuffer.wrap(sb.toString().getBytes(StandardCharsets.UTF_8));
    }
}
