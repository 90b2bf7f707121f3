package io.basalt.broker.filter;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import io.basalt.store.MessageFilter;
import io.basalt.store.MessageProperties;

/**
 * A compiled SQL92 selector, applied by the store's read path to the properties of each stored record
 * ({@link MessageFilter#isMatchedByCommitLog}); every ConsumeQueue entry passes the tag stage. Evaluation
 * reads, in one pass over the record's properties bytes, only the properties the selector names (TAGS and
 * KEYS are properties too), decoding just their values. A message matches when the selector is TRUE; unknown
 * (a missing property), FALSE, or a value that cannot be converted for a comparison ({@code a > 5} with
 * {@code a='x'}) do not match, as in RocketMQ. Immutable; concurrent pulls share one instance.
 */
public final class SqlFilter implements MessageFilter {
    private final String expression;
    private final Expression root;
    private final List<String> propertyNames;
    /** UTF-8 names, indexed like the evaluation slots. */
    private final byte[][] names;

    private SqlFilter(String expression, SqlCompiler.Compiled compiled) {
        this.expression = expression;
        this.root = compiled.root();
        this.propertyNames = compiled.propertyNames();
        this.names = new byte[propertyNames.size()][];
        for (int i = 0; i < names.length; i++) {
            names[i] = propertyNames.get(i).getBytes(StandardCharsets.UTF_8);
        }
    }

    /**
     * Compiles a selector with RocketMQ 5.2.0's grammar and compile-time rules ({@link SqlCompiler}).
     *
     * @throws SqlFilterException when the expression is malformed; its message is the client's remark
     */
    public static SqlFilter compile(String expression) throws SqlFilterException {
        return new SqlFilter(expression, SqlCompiler.compile(expression));
    }

    public String expression() {
        return expression;
    }

    /** The properties the selector reads, in first-use order. */
    public List<String> propertyNames() {
        return propertyNames;
    }

    @Override
    public boolean isMatchedByConsumeQueue(long tagsCode) {
        return true;
    }

    @Override
    public boolean needsProperties() {
        return true;
    }

    @Override
    public boolean isMatchedByCommitLog(ByteBuffer properties) {
        return matches(read(properties));
    }

    /** The selector against a message's properties as a map (tests, tools). */
    public boolean matches(Map<String, String> properties) {
        String[] values = new String[names.length];
        for (int i = 0; i < values.length; i++) {
            String v = properties.get(propertyNames.get(i));
            values[i] = v == null || v.isEmpty() ? null : v;
        }
        return matches(values);
    }

    private boolean matches(String[] values) {
        try {
            return root.evaluate(values) == Boolean.TRUE;
        } catch (Values.EvaluationException e) {
            return false;
        }
    }

    /**
     * The values of the named properties in {@code name \u0001 value \u0002} UTF-8 bytes; as RocketMQ's
     * decoding, an entry without a value is absent and a repeated name keeps its last value.
     */
    private String[] read(ByteBuffer buffer) {
        String[] values = new String[names.length];
        if (names.length == 0) {
            return values;
        }
        int end = buffer.limit();
        int entry = buffer.position();
        while (entry < end) {
            int sep = -1;
            int entryEnd = entry;
            for (; entryEnd < end; entryEnd++) {
                byte b = buffer.get(entryEnd);
                if (b == MessageProperties.PROPERTY_SEPARATOR) {
                    break;
                }
                if (b == MessageProperties.NAME_VALUE_SEPARATOR && sep < 0) {
                    sep = entryEnd;
                }
            }
            if (sep > entry && sep < entryEnd - 1) {
                int slot = slotOf(buffer, entry, sep - entry);
                if (slot >= 0) {
                    byte[] value = new byte[entryEnd - sep - 1];
                    buffer.get(sep + 1, value);
                    values[slot] = new String(value, StandardCharsets.UTF_8);
                }
            }
            entry = entryEnd + 1;
        }
        return values;
    }

    private int slotOf(ByteBuffer buffer, int at, int length) {
        for (int slot = 0; slot < names.length; slot++) {
            byte[] name = names[slot];
            if (name.length == length && regionEquals(buffer, at, name)) {
                return slot;
            }
        }
        return -1;
    }

    private static boolean regionEquals(ByteBuffer buffer, int at, byte[] name) {
        for (int i = 0; i < name.length; i++) {
            if (buffer.get(at + i) != name[i]) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return expression;
    }
}
