package io.basalt.broker.filter;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.basalt.broker.filter.Expression.Constant;
import io.basalt.broker.filter.Expression.Property;
import io.basalt.broker.filter.grammar.SqlSelectorLexer;
import io.basalt.broker.filter.grammar.SqlSelectorParser;
import io.basalt.broker.filter.grammar.SqlSelectorParser.AndExpressionContext;
import io.basalt.broker.filter.grammar.SqlSelectorParser.ComparisonExpressionContext;
import io.basalt.broker.filter.grammar.SqlSelectorParser.ComparisonTailContext;
import io.basalt.broker.filter.grammar.SqlSelectorParser.EqualityExpressionContext;
import io.basalt.broker.filter.grammar.SqlSelectorParser.EqualityTailContext;
import io.basalt.broker.filter.grammar.SqlSelectorParser.LiteralContext;
import io.basalt.broker.filter.grammar.SqlSelectorParser.OrExpressionContext;
import io.basalt.broker.filter.grammar.SqlSelectorParser.PrimaryExpressionContext;
import io.basalt.broker.filter.grammar.SqlSelectorParser.StringLiteralContext;
import io.basalt.broker.filter.grammar.SqlSelectorParser.UnaryExpressionContext;
import org.antlr.v4.runtime.BaseErrorListener;
import org.antlr.v4.runtime.CharStreams;
import org.antlr.v4.runtime.CommonTokenStream;
import org.antlr.v4.runtime.RecognitionException;
import org.antlr.v4.runtime.Recognizer;
import org.antlr.v4.runtime.Token;

/**
 * Compiles a SQL92 selector into an {@link Expression} tree: parses it with the generated
 * {@code SqlSelector} parser, then builds the tree with RocketMQ 5.2.0's compile-time rules, which refuse
 * (as a parse failure, SUBSCRIPTION_PARSE_FAILED to the client):
 * <ul>
 *   <li>an expression that is not a truth value where one is needed (the whole selector, AND / OR / NOT
 *       operands): {@code a + 1}-like values, a number or string alone; a bare property is allowed (and
 *       is false for any present property, its value being a string);</li>
 *   <li>{@code >}, {@code >=}, {@code <}, {@code <=} and BETWEEN with a string, boolean or NULL literal or a
 *       truth value as operand ({@code NOT a > 5} is {@code (NOT a) > 5}, so it is refused too);</li>
 *   <li>{@code =} / {@code <>} with a NULL literal (use IS NULL), or a boolean literal on the left of
 *       another kind of literal;</li>
 *   <li>BETWEEN with literal bounds where the low bound is greater than the high one;</li>
 *   <li>IN whose left side is not a property;</li>
 *   <li>a decimal literal outside the long range, and a floating literal that is infinite or below
 *       {@link Double#MIN_VALUE} (RocketMQ refuses {@code 0.0} this way; write {@code 0}).</li>
 * </ul>
 * One compiler per expression; not thread-safe (use {@link SqlFilter#compile}).
 */
final class SqlCompiler {
    private final Map<String, Integer> slots = new LinkedHashMap<>();

    /** The compiled selector and the property names its slots stand for, in slot order. */
    record Compiled(Expression root, List<String> propertyNames) {
    }

    static Compiled compile(String sql) throws SqlFilterException {
        if (sql == null || sql.isBlank()) {
            throw new SqlFilterException("Invalid MessageSelector. the expression is empty");
        }
        SqlSelectorLexer lexer = new SqlSelectorLexer(CharStreams.fromString(sql));
        SqlSelectorParser parser = new SqlSelectorParser(new CommonTokenStream(lexer));
        lexer.removeErrorListeners();
        parser.removeErrorListeners();
        lexer.addErrorListener(FailFast.INSTANCE);
        parser.addErrorListener(FailFast.INSTANCE);
        SqlCompiler compiler = new SqlCompiler();
        try {
            Expression root = compiler.asBoolean(compiler.or(parser.selector().orExpression()));
            return new Compiled(root, List.copyOf(compiler.slots.keySet()));
        } catch (Refused e) {
            throw new SqlFilterException("Invalid MessageSelector. " + e.getMessage(), e);
        }
    }

    /** A syntax error (from the generated lexer or parser) or a compile-time rule; caught in {@link #compile}. */
    private static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message, null, false, false);
        }
    }

    /** Stops at the first syntax error instead of ANTLR's default recovery. */
    private static final class FailFast extends BaseErrorListener {
        static final FailFast INSTANCE = new FailFast();

        @Override
        public void syntaxError(Recognizer<?, ?> recognizer, Object offendingSymbol, int line, int charPositionInLine,
                                String msg, RecognitionException e) {
            throw new Refused("line " + line + ":" + charPositionInLine + " " + msg);
        }
    }

    private Expression or(OrExpressionContext ctx) {
        Expression left = and(ctx.andExpression(0));
        for (int i = 1; i < ctx.andExpression().size(); i++) {
            left = new Expression.Logic(asBoolean(left), asBoolean(and(ctx.andExpression(i))), false);
        }
        return left;
    }

    private Expression and(AndExpressionContext ctx) {
        Expression left = equality(ctx.equalityExpression(0));
        for (int i = 1; i < ctx.equalityExpression().size(); i++) {
            left = new Expression.Logic(asBoolean(left), asBoolean(equality(ctx.equalityExpression(i))), true);
        }
        return left;
    }

    private Expression equality(EqualityExpressionContext ctx) {
        Expression left = comparison(ctx.comparisonExpression());
        for (EqualityTailContext tail : ctx.equalityTail()) {
            if (tail instanceof SqlSelectorParser.EqualContext eq) {
                left = equal(left, comparison(eq.comparisonExpression()));
            } else if (tail instanceof SqlSelectorParser.NotEqualContext ne) {
                left = new Expression.Not(equal(left, comparison(ne.comparisonExpression())));
            } else if (tail instanceof SqlSelectorParser.IsNullContext) {
                left = new Expression.Equal(left, nullConstant());
            } else {
                left = new Expression.Not(new Expression.Equal(left, nullConstant()));
            }
        }
        return left;
    }

    private Expression comparison(ComparisonExpressionContext ctx) {
        Expression left = unary(ctx.unaryExpression());
        for (ComparisonTailContext tail : ctx.comparisonTail()) {
            left = comparisonTail(left, tail);
        }
        return left;
    }

    private Expression comparisonTail(Expression left, ComparisonTailContext tail) {
        if (tail instanceof SqlSelectorParser.CompareContext c) {
            Expression right = unary(c.unaryExpression());
            return ordered(left, right, switch (c.op.getType()) {
                case SqlSelectorLexer.GT -> Expression.Ordered.Op.GT;
                case SqlSelectorLexer.GE -> Expression.Ordered.Op.GE;
                case SqlSelectorLexer.LT -> Expression.Ordered.Op.LT;
                default -> Expression.Ordered.Op.LE;
            });
        }
        if (tail instanceof SqlSelectorParser.TextMatchContext t) {
            Expression.TextMatch.Kind kind = switch (t.op.getType()) {
                case SqlSelectorLexer.CONTAINS -> Expression.TextMatch.Kind.CONTAINS;
                case SqlSelectorLexer.STARTSWITH -> Expression.TextMatch.Kind.STARTSWITH;
                default -> Expression.TextMatch.Kind.ENDSWITH;
            };
            return new Expression.TextMatch(left, string(t.stringLiteral()), kind, t.NOT() != null);
        }
        if (tail instanceof SqlSelectorParser.BetweenContext b) {
            Expression low = unary(b.low);
            Expression high = unary(b.high);
            if (b.NOT() != null) {
                return new Expression.Logic(ordered(left, low, Expression.Ordered.Op.LT),
                    ordered(left, high, Expression.Ordered.Op.GT), false);
            }
            checkBetweenBounds(low, high);
            return new Expression.Logic(ordered(left, low, Expression.Ordered.Op.GE),
                ordered(left, high, Expression.Ordered.Op.LE), true);
        }
        SqlSelectorParser.InContext in = (SqlSelectorParser.InContext) tail;
        if (!(left instanceof Property property)) {
            throw new Refused("Expected a property for In expression, got: " + left);
        }
        Set<String> values = new LinkedHashSet<>();
        for (StringLiteralContext s : in.stringLiteral()) {
            values.add(string(s));
        }
        return new Expression.In(property, values, in.NOT() != null);
    }

    private Expression unary(UnaryExpressionContext ctx) {
        if (ctx instanceof SqlSelectorParser.PlusContext p) {
            return unary(p.unaryExpression());
        }
        if (ctx instanceof SqlSelectorParser.NegateContext n) {
            return new Expression.Negate(unary(n.unaryExpression()));
        }
        if (ctx instanceof SqlSelectorParser.NotContext n) {
            return new Expression.Not(asBoolean(unary(n.unaryExpression())));
        }
        return primary(((SqlSelectorParser.PrimaryContext) ctx).primaryExpression());
    }

    private Expression primary(PrimaryExpressionContext ctx) {
        if (ctx instanceof SqlSelectorParser.ConstantContext c) {
            return literal(c.literal());
        }
        if (ctx instanceof SqlSelectorParser.PropertyContext p) {
            String name = p.ID().getText();
            return new Property(name, slots.computeIfAbsent(name, n -> slots.size()));
        }
        return or(((SqlSelectorParser.ParenthesizedContext) ctx).orExpression());
    }

    private static Expression literal(LiteralContext ctx) {
        if (ctx instanceof SqlSelectorParser.StringContext s) {
            return new Constant(string(s.stringLiteral()), false);
        }
        if (ctx instanceof SqlSelectorParser.DecimalContext d) {
            return new Constant(decimal(d.DECIMAL_LITERAL().getText()), false);
        }
        if (ctx instanceof SqlSelectorParser.FloatingContext f) {
            return new Constant(floating(f.FLOATING_POINT_LITERAL().getText()), false);
        }
        if (ctx instanceof SqlSelectorParser.TrueContext) {
            return new Constant(Boolean.TRUE, true);
        }
        if (ctx instanceof SqlSelectorParser.FalseContext) {
            return new Constant(Boolean.FALSE, true);
        }
        return nullConstant();
    }

    private static Constant nullConstant() {
        return new Constant(null, true);
    }

    /** A decimal literal: Integer when it fits, else Long; an optional L suffix. */
    private static Number decimal(String text) {
        String digits = text.endsWith("l") || text.endsWith("L") ? text.substring(0, text.length() - 1) : text;
        long value;
        try {
            value = Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new Refused("decimal literal " + text + " is outside the long range");
        }
        return value >= Integer.MIN_VALUE && value <= Integer.MAX_VALUE ? (Number) (int) value : (Number) value;
    }

    private static Double floating(String text) {
        double value = Double.parseDouble(text);
        if (value > Double.MAX_VALUE) {
            throw new Refused(text + " is greater than " + Double.MAX_VALUE);
        }
        if (value < Double.MIN_VALUE) {
            throw new Refused(text + " is less than " + Double.MIN_VALUE);
        }
        return value;
    }

    /** The text of a string literal: quotes removed, {@code ''} is one quote. */
    private static String string(StringLiteralContext ctx) {
        Token t = ctx.STRING_LITERAL().getSymbol();
        String image = t.getText();
        return image.substring(1, image.length() - 1).replace("''", "'");
    }

    private Expression asBoolean(Expression e) {
        if (e.isBoolean()) {
            return e;
        }
        if (e instanceof Property) {
            return new Expression.BooleanCast(e);
        }
        throw new Refused("Expression will not result in a boolean value: " + e);
    }

    private static Expression equal(Expression left, Expression right) {
        checkEqualOperand(left);
        checkEqualOperand(right);
        if (left instanceof Constant && right instanceof Constant && left.isBoolean() && !right.isBoolean()) {
            throw new Refused("'" + left + "' cannot be compared with '" + right + "'");
        }
        return new Expression.Equal(left, right);
    }

    private static void checkEqualOperand(Expression e) {
        if (e instanceof Constant c && c.value == null) {
            throw new Refused("'" + e + "' cannot be compared.");
        }
    }

    private static Expression ordered(Expression left, Expression right, Expression.Ordered.Op op) {
        checkOrderedOperand(left);
        checkOrderedOperand(right);
        return new Expression.Ordered(left, right, op);
    }

    private static void checkOrderedOperand(Expression e) {
        if (e instanceof Constant c) {
            if (c.value instanceof Number) {
                return;
            }
            throw new Refused("Value '" + e + "' cannot be compared.");
        }
        if (e.isBoolean()) {
            throw new Refused("Value '" + e + "' cannot be compared.");
        }
    }

    private static void checkBetweenBounds(Expression low, Expression high) {
        if (low instanceof Constant l && high instanceof Constant h) {
            if (l.value == null || h.value == null) {
                throw new Refused("Illegal values of between, values can not be null!");
            }
            int order;
            try {
                order = Values.compare(h.value, l.value);
            } catch (Values.EvaluationException e) {
                throw new Refused("Illegal values of between: " + e.getMessage());
            }
            if (order < 0) {
                throw new Refused("Illegal values of between, left value(" + l + ") must less than or equal to right value("
                    + h + ")");
            }
        }
    }

}
