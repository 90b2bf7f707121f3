package io.basalt.broker.filter;

/**
 * RocketMQ's value comparison for SQL92 selectors: values are property strings, Integer or Long (decimal
 * literals), Double (floating literals) and Boolean. Two values of different types are converted up before
 * comparing (Integer to Long to Double), and a string meets a number or boolean by parsing the string as the
 * other side's type (RocketMQ always compiles with string conversion on). A string that does not parse makes
 * the whole evaluation fail ({@link EvaluationException}), so the message does not match. Types that cannot
 * meet at all compare as "less" (-1), as in RocketMQ: {@code =} is then false. Stateless.
 */
final class Values {
    private Values() {
    }

    /** Thrown when a value cannot be converted for a comparison; the message being filtered does not match. */
    static final class EvaluationException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        EvaluationException(String message) {
            super(message, null, false, false);
        }
    }

    /** RocketMQ's {@code ComparisonExpression.__compare} with string conversion on; both values non-null. */
    static int compare(Object left, Object right) {
        if (left.getClass() == right.getClass()) {
            return compareSameType(left, right);
        }
        if (left instanceof Boolean) {
            if (right instanceof String) {
                // RocketMQ casts the Boolean to String here and fails
                throw new EvaluationException("cannot compare boolean " + left + " with string '" + right + "'");
            }
            return -1;
        }
        if (left instanceof Integer l) {
            if (right instanceof Long r) {
                return Long.compare(l, r);
            }
            if (right instanceof Double r) {
                return Double.compare(l, r);
            }
            if (right instanceof String r) {
                return Integer.compare(l, parseInt(r));
            }
            return -1;
        }
        if (left instanceof Long l) {
            if (right instanceof Integer r) {
                return Long.compare(l, r);
            }
            if (right instanceof Double r) {
                return Double.compare(l, r);
            }
            if (right instanceof String r) {
                return Long.compare(l, parseLong(r));
            }
            return -1;
        }
        if (left instanceof Double l) {
            if (right instanceof Integer r) {
                return Double.compare(l, r);
            }
            if (right instanceof Long r) {
                return Double.compare(l, r);
            }
            if (right instanceof String r) {
                return Double.compare(l, parseDouble(r));
            }
            return -1;
        }
        if (left instanceof String l) {
            if (right instanceof Boolean r) {
                return Boolean.compare(Boolean.parseBoolean(l), r);
            }
            if (right instanceof Integer r) {
                return Integer.compare(parseInt(l), r);
            }
            if (right instanceof Long r) {
                return Long.compare(parseLong(l), r);
            }
            if (right instanceof Double r) {
                return Double.compare(parseDouble(l), r);
            }
        }
        return -1;
    }

    /**
     * RocketMQ's {@code >}, {@code >=}, {@code <}, {@code <=}: two strings are compared as numbers (a string
     * that is not a number fails the evaluation); otherwise as {@link #compare}.
     */
    static int compareOrdered(Object left, Object right) {
        if (left instanceof String l && right instanceof String r) {
            return Double.compare(parseDouble(l), parseDouble(r));
        }
        return compare(left, right);
    }

    /** RocketMQ's {@code =}: null against a value is unknown (null) when the left side is null, else false. */
    static Boolean equal(Object left, Object right) {
        if ((left == null) != (right == null)) {
            return left == null ? null : Boolean.FALSE;
        }
        if (left == right || left.equals(right)) {
            return Boolean.TRUE;
        }
        return compare(left, right) == 0;
    }

    @SuppressWarnings("unchecked")
    private static int compareSameType(Object left, Object right) {
        return ((Comparable<Object>) left).compareTo(right);
    }

    private static int parseInt(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new EvaluationException("'" + s + "' is not an integer");
        }
    }

    private static long parseLong(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new EvaluationException("'" + s + "' is not a long");
        }
    }

    private static double parseDouble(String s) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw new EvaluationException("'" + s + "' is not a number");
        }
    }
}
