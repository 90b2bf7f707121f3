package io.basalt.remoting.json;

import com.fasterxml.jackson.core.io.NumberOutput;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Map;

/**
 * Writes a plain tree as fastjson 1.2.83's {@code JSON.toJSONString(value)} writes it (default features,
 * the ones {@code RemotingSerializable} uses).
 *
 * <p>Tree: a JSON object is a {@link Map} (iteration order is the written order; keys are
 * {@link String}s, or, as fastjson writes them for non-string map keys, {@link Number}s and
 * {@link Map}s, both unquoted; any other key is written as its {@code toString()}), an array is a
 * {@link Collection}, a scalar is a {@link String}, {@link Number}, {@link Boolean} or {@link Enum}
 * (written by name). {@code null} values and keys of a map are left out; {@code null} in an array is
 * {@code null}.
 *
 * <p>Strings: {@code "} and {@code \} get a backslash, {@code \b \t \n \f \r} their short escapes, the
 * other C0 controls, U+007F–U+009F and U+2028/U+2029 a {@code \\uXXXX} with upper-case hex; everything
 * else, {@code /}, non-ASCII and surrogates included, is written as it is. A lone surrogate therefore
 * reaches the UTF-8 bytes as {@code '?'}, as it does from fastjson through {@code String.getBytes(UTF_8)}.
 *
 * <p>Numbers: integers in plain decimal; a double or float as the shortest decimal that reads back to
 * it, in {@code Double.toString}'s layout ({@code 0.001}, {@code 1.0E7}), as fastjson's Ryu writer gives
 * it. JDK 17's own {@code Double.toString} is not always the shortest ({@code 2.0E23} comes out as
 * {@code 1.9999999999999998E23}; JDK-4511638, fixed in 19), so the digits come from jackson-core's
 * Schubfach writer, which agrees with fastjson's. A non-finite double or float is {@code null}; a
 * {@link BigInteger} or {@link BigDecimal} is its {@code toString()}.
 *
 * <p>Stateless; any thread.
 */
public final class FastjsonWriter {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private FastjsonWriter() {
    }

    /** The tree as UTF-8 JSON bytes. */
    public static byte[] encode(Object tree) {
        return write(tree).getBytes(StandardCharsets.UTF_8);
    }

    /** The tree as JSON text. */
    public static String write(Object tree) {
        StringBuilder out = new StringBuilder(256);
        writeValue(out, tree);
        return out.toString();
    }

    /** Appends one value of the tree model to {@code out}. */
    public static void writeValue(StringBuilder out, Object value) {
        writeValue(out, value, 0);
    }

    /** Appends an integer as fastjson writes one: plain decimal. */
    public static void writeLong(StringBuilder out, long value) {
        out.append(value);
    }

    /** Appends {@code text} as a double-quoted, escaped JSON string. */
    public static void writeString(StringBuilder out, String text) {
        out.append('"');
        int runStart = 0;
        int length = text.length();
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (c >= ' ' && c != '"' && c != '\\' && (c < 0x7F || (c >= 0xA0 && c != '\u2028' && c != '\u2029'))) {
                continue;
            }
            out.append(text, runStart, i);
            runStart = i + 1;
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\f' -> out.append("\\f");
                case '\r' -> out.append("\\r");
                default -> out.append("\\u")
                    .append(HEX[(c >>> 12) & 15]).append(HEX[(c >>> 8) & 15])
                    .append(HEX[(c >>> 4) & 15]).append(HEX[c & 15]);
            }
        }
        out.append(text, runStart, length);
        out.append('"');
    }

    private static void writeValue(StringBuilder out, Object value, int depth) {
        if (depth > FastjsonParser.MAX_DEPTH) {
            throw new JsonException("JSON tree nested deeper than " + FastjsonParser.MAX_DEPTH);
        }
        if (value == null) {
            out.append("null");
        } else if (value instanceof String text) {
            writeString(out, text);
        } else if (value instanceof Number number) {
            writeNumber(out, number);
        } else if (value instanceof Boolean b) {
            out.append(b.booleanValue());
        } else if (value instanceof Enum<?> constant) {
            writeString(out, constant.name());
        } else if (value instanceof Map<?, ?> map) {
            writeObject(out, map, depth);
        } else if (value instanceof Collection<?> items) {
            out.append('[');
            boolean first = true;
            for (Object item : items) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                writeValue(out, item, depth + 1);
            }
            out.append(']');
        } else {
            throw new JsonException("no JSON form for " + value.getClass().getName());
        }
    }

    private static void writeNumber(StringBuilder out, Number number) {
        if (number instanceof Integer || number instanceof Long || number instanceof Short || number instanceof Byte) {
            writeLong(out, number.longValue());
        } else if (number instanceof Double d) {
            // fastjson writes a non-finite double as null
            out.append(Double.isFinite(d) ? NumberOutput.toString(d.doubleValue(), true) : "null");
        } else if (number instanceof Float f) {
            out.append(Float.isFinite(f) ? NumberOutput.toString(f.floatValue(), true) : "null");
        } else if (number instanceof BigInteger || number instanceof BigDecimal) {
            out.append(number);
        } else {
            throw new JsonException("no JSON form for " + number.getClass().getName());
        }
    }

    private static void writeObject(StringBuilder out, Map<?, ?> map, int depth) {
        out.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            if (entry.getValue() == null || entry.getKey() == null) {
                continue;
            }
            if (!first) {
                out.append(',');
            }
            first = false;
            Object key = entry.getKey();
            if (key instanceof String name) {
                writeString(out, name);
            } else if (key instanceof Map<?, ?> || key instanceof Number) {
                writeValue(out, key, depth + 1);
            } else {
                writeString(out, key.toString());
            }
            out.append(':');
            writeValue(out, entry.getValue(), depth + 1);
        }
        out.append('}');
    }
}
