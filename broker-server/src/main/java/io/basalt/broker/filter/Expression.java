package io.basalt.broker.filter;

import java.util.Set;

/**
 * A node of a compiled SQL92 selector, with RocketMQ's three-valued evaluation: a node yields a value
 * ({@code String}, {@code Integer}, {@code Long}, {@code Double}, {@code Boolean}) or null (unknown, e.g. a
 * missing property). A message matches only when the whole selector yields {@code TRUE}. Immutable; any
 * thread may evaluate.
 */
abstract class Expression {
    /**
     * The node's value for a message whose referenced properties are {@code properties}, indexed by
     * {@link Property#slot}; null entries are absent properties.
     *
     * @throws Values.EvaluationException when a value cannot be converted (the message does not match)
     */
    abstract Object evaluate(String[] properties);

    /** RocketMQ's {@code BooleanExpression}: a node whose value is a truth value (or unknown). */
    boolean isBoolean() {
        return false;
    }

    static Boolean truth(Object value) {
        if (value == null || value instanceof Boolean) {
            return (Boolean) value;
        }
        throw new Values.EvaluationException("not a truth value: " + value);
    }

    /** A literal. {@code TRUE}, {@code FALSE} and {@code NULL} are boolean constants, as in RocketMQ. */
    static final class Constant extends Expression {
        final Object value;
        private final boolean booleanConstant;

        Constant(Object value, boolean booleanConstant) {
            this.value = value;
            this.booleanConstant = booleanConstant;
        }

        @Override
        Object evaluate(String[] properties) {
            return value;
        }

        @Override
        boolean isBoolean() {
            return booleanConstant;
        }

        @Override
        public String toString() {
            return value == null ? "NULL" : value instanceof String s ? "'" + s.replace("'", "''") + "'" : value.toString();
        }
    }

    /** A message property (TAGS, KEYS, a user property...): its string value, null when absent. */
    static final class Property extends Expression {
        final String name;
        final int slot;

        Property(String name, int slot) {
            this.name = name;
            this.slot = slot;
        }

        @Override
        Object evaluate(String[] properties) {
            return properties[slot];
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** Unary minus: a number negated; anything else (a property string) is unknown. */
    static final class Negate extends Expression {
        private final Expression operand;

        Negate(Expression operand) {
            this.operand = operand;
        }

        @Override
        Object evaluate(String[] properties) {
            Object v = operand.evaluate(properties);
            if (v instanceof Integer i) {
                return -i;
            }
            if (v instanceof Long l) {
                return -l;
            }
            if (v instanceof Double d) {
                return -d;
            }
            return null;
        }

        @Override
        public String toString() {
            return "(-" + operand + ")";
        }
    }

    /**
     * A property used where a truth value is expected ({@code WHERE flag}): unknown when absent, else TRUE
     * only for a Boolean TRUE — property values are strings, so this is FALSE for every present property.
     */
    static final class BooleanCast extends Expression {
        private final Expression operand;

        BooleanCast(Expression operand) {
            this.operand = operand;
        }

        @Override
        Object evaluate(String[] properties) {
            Object v = operand.evaluate(properties);
            if (v == null) {
                return null;
            }
            return v instanceof Boolean b ? b : Boolean.FALSE;
        }

        @Override
        boolean isBoolean() {
            return true;
        }

        @Override
        public String toString() {
            return operand.toString();
        }
    }

    static final class Not extends Expression {
        private final Expression operand;

        Not(Expression operand) {
            this.operand = operand;
        }

        @Override
        Object evaluate(String[] properties) {
            Boolean v = truth(operand.evaluate(properties));
            return v == null ? null : !v;
        }

        @Override
        boolean isBoolean() {
            return true;
        }

        @Override
        public String toString() {
            return "(NOT " + operand + ")";
        }
    }

    /** AND / OR with SQL's three-valued logic; the right side is not evaluated when the left decides. */
    static final class Logic extends Expression {
        private final Expression left;
        private final Expression right;
        private final boolean and;

        Logic(Expression left, Expression right, boolean and) {
            this.left = left;
            this.right = right;
            this.and = and;
        }

        @Override
        Object evaluate(String[] properties) {
            Boolean l = truth(left.evaluate(properties));
            if (l != null && l != and) {
                return l; // FALSE for AND, TRUE for OR
            }
            Boolean r = truth(right.evaluate(properties));
            if (r != null && r != and) {
                return r;
            }
            return l == null || r == null ? null : and;
        }

        @Override
        boolean isBoolean() {
            return true;
        }

        @Override
        public String toString() {
            return "(" + left + (and ? " AND " : " OR ") + right + ")";
        }
    }

    /** {@code =}, and IS NULL (equality with the NULL constant): see {@link Values#equal}. */
    static final class Equal extends Expression {
        private final Expression left;
        private final Expression right;

        Equal(Expression left, Expression right) {
            this.left = left;
            this.right = right;
        }

        @Override
        Object evaluate(String[] properties) {
            return Values.equal(left.evaluate(properties), right.evaluate(properties));
        }

        @Override
        boolean isBoolean() {
            return true;
        }

        @Override
        public String toString() {
            return "(" + left + " = " + right + ")";
        }
    }

    /** {@code >}, {@code >=}, {@code <}, {@code <=}: unknown when either side is null. */
    static final class Ordered extends Expression {
        enum Op { GT, GE, LT, LE }

        private final Expression left;
        private final Expression right;
        private final Op op;

        Ordered(Expression left, Expression right, Op op) {
            this.left = left;
            this.right = right;
            this.op = op;
        }

        @Override
        Object evaluate(String[] properties) {
            Object l = left.evaluate(properties);
            if (l == null) {
                return null;
            }
            Object r = right.evaluate(properties);
            if (r == null) {
                return null;
            }
            int c = Values.compareOrdered(l, r);
            return switch (op) {
                case GT -> c > 0;
                case GE -> c >= 0;
                case LT -> c < 0;
                case LE -> c <= 0;
            };
        }

        @Override
        boolean isBoolean() {
            return true;
        }

        @Override
        public String toString() {
            return "(" + left + " " + op + " " + right + ")";
        }
    }

    /** {@code prop [NOT] IN ('a', ...)}: unknown when the property is absent. */
    static final class In extends Expression {
        private final Property property;
        private final Set<String> values;
        private final boolean not;

        In(Property property, Set<String> values, boolean not) {
            this.property = property;
            this.values = Set.copyOf(values);
            this.not = not;
        }

        @Override
        Object evaluate(String[] properties) {
            Object v = property.evaluate(properties);
            if (!(v instanceof String s)) {
                return null;
            }
            return values.contains(s) != not;
        }

        @Override
        boolean isBoolean() {
            return true;
        }

        @Override
        public String toString() {
            return "(" + property + (not ? " NOT IN " : " IN ") + values + ")";
        }
    }

    /**
     * {@code [NOT] CONTAINS / STARTSWITH / ENDSWITH 'text'}: FALSE (not unknown) when the value is absent or
     * not a string or the text is empty — for the NOT forms too, as in RocketMQ.
     */
    static final class TextMatch extends Expression {
        enum Kind { CONTAINS, STARTSWITH, ENDSWITH }

        private final Expression operand;
        private final String text;
        private final Kind kind;
        private final boolean not;

        TextMatch(Expression operand, String text, Kind kind, boolean not) {
            this.operand = operand;
            this.text = text;
            this.kind = kind;
            this.not = not;
        }

        @Override
        Object evaluate(String[] properties) {
            if (text.isEmpty()) {
                return Boolean.FALSE;
            }
            if (!(operand.evaluate(properties) instanceof String s)) {
                return Boolean.FALSE;
            }
            boolean hit = switch (kind) {
                case CONTAINS -> s.contains(text);
                case STARTSWITH -> s.startsWith(text);
                case ENDSWITH -> s.endsWith(text);
            };
            return hit != not;
        }

        @Override
        boolean isBoolean() {
            return true;
        }

        @Override
        public String toString() {
            return "(" + operand + (not ? " NOT " : " ") + kind + " '" + text + "')";
        }
    }
}
