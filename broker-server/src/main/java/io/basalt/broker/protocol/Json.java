package io.basalt.broker.protocol;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * fastjson 1.x's JSON dialect over a plain tree.
 *
 * <p>Tree: a JSON object is a {@link Map} (iteration order is the written order; keys are
 * {@link String}s, or, as fastjson writes them for non-string map keys, {@link Number}s and
 * {@link Map}s, both unquoted), an array is a {@link Collection}, a scalar is a {@link String},
 * {@link Number}, {@link Boolean} or {@link Enum} (written by name). {@code null} values of a map are
 * left out. Parsing gives {@link LinkedHashMap}s, {@link ArrayList}s, {@link String}s, {@link Long}s
 * (or {@link BigInteger}s), {@link Double}s, {@link Boolean}s and {@code null}.
 *
 * <p>Stateless; any thread.
 */
public final class Json {

    /** Deeper nesting than this is refused rather than risking the stack of a service thread. */
    static final int MAX_DEPTH = 64;

    private Json() {
    }

    /** The tree as UTF-8 JSON bytes. */
    public static byte[] encode(Object tree) {
        return write(tree).getBytes(StandardCharsets.UTF_8);
    }

    /** The tree as JSON text. */
    public static String write(Object tree) {
        StringBuilder out = new StringBuilder(256);
        writeValue(out, tree, 0);
        return out.toString();
    }

    /** Parses UTF-8 JSON text, including fastjson's unquoted object and number map keys. */
    public static Object parse(byte[] utf8) {
        if (utf8 == null || utf8.length == 0) {
            throw new JsonException("empty body, expected JSON");
        }
        return parse(new String(utf8, StandardCharsets.UTF_8));
    }

    /** Parses JSON text, including fastjson's unquoted object and number map keys. */
    public static Object parse(String text) {
        Parser parser = new Parser(text);
        Object value = parser.value(0);
        parser.skipWhitespace();
        if (parser.pos != text.length()) {
            throw parser.error("unexpected text after the JSON value");
        }
        return value;
    }

    private static void writeValue(StringBuilder out, Object value, int depth) {
        if (depth > MAX_DEPTH) {
            throw new JsonException("JSON tree nested deeper than " + MAX_DEPTH);
        }
        if (value == null) {
            out.append("null");
        } else if (value instanceof String text) {
            writeString(out, text);
        } else if (value instanceof Boolean || value instanceof Integer || value instanceof Long
            || value instanceof Short || value instanceof Byte || value instanceof BigInteger
            || value instanceof BigDecimal) {
            out.append(value);
        } else if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            // fastjson writes a non-finite double as null
            out.append(Double.isFinite(d) ? Double.toString(d) : "null");
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

    /** fastjson's default escaping: short escapes for \b \t \n \f \r " \, {@code \\uXXXX} for other controls. */
    private static void writeString(StringBuilder out, String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\f' -> out.append("\\f");
                case '\r' -> out.append("\\r");
                default -> {
                    if (c < 0x20) {
                        out.append("\\u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xF, 16));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /** Recursive descent over one text; one instance per parse. */
    private static final class Parser {
        private final String text;
        private int pos;

        Parser(String text) {
            this.text = text;
        }

        Object value(int depth) {
            if (depth > MAX_DEPTH) {
                throw error("JSON nested deeper than " + MAX_DEPTH);
            }
            skipWhitespace();
            if (pos >= text.length()) {
                throw error("unexpected end of JSON");
            }
            char c = text.charAt(pos);
            return switch (c) {
                case '{' -> object(depth);
                case '[' -> array(depth);
                case '"', '\'' -> string();
                case 't' -> literal("true", Boolean.TRUE);
                case 'f' -> literal("false", Boolean.FALSE);
                case 'n' -> literal("null", null);
                default -> {
                    if (c == '-' || (c >= '0' && c <= '9')) {
                        yield number();
                    }
                    throw error("unexpected character '" + c + "'");
                }
            };
        }

        private Map<Object, Object> object(int depth) {
            pos++;
            Map<Object, Object> map = new LinkedHashMap<>();
            skipWhitespace();
            if (peek() == '}') {
                pos++;
                return map;
            }
            while (true) {
                skipWhitespace();
                Object key = isIdentifierStart(peek()) ? identifier() : value(depth + 1);
                skipWhitespace();
                expect(':');
                map.put(key, value(depth + 1));
                skipWhitespace();
                char c = next();
                if (c == '}') {
                    return map;
                }
                if (c != ',') {
                    pos--;
                    throw error("expected ',' or '}'");
                }
            }
        }

        private List<Object> array(int depth) {
            pos++;
            List<Object> list = new ArrayList<>();
            skipWhitespace();
            if (peek() == ']') {
                pos++;
                return list;
            }
            while (true) {
                list.add(value(depth + 1));
                skipWhitespace();
                char c = next();
                if (c == ']') {
                    return list;
                }
                if (c != ',') {
                    pos--;
                    throw error("expected ',' or ']'");
                }
            }
        }

        /** fastjson accepts unquoted property names; other clients may send them. */
        private static boolean isIdentifierStart(char c) {
            return Character.isLetter(c) || c == '_' || c == '$';
        }

        private Object identifier() {
            int start = pos;
            while (pos < text.length() && (Character.isLetterOrDigit(text.charAt(pos)) || text.charAt(pos) == '_'
                || text.charAt(pos) == '$')) {
                pos++;
            }
            String word = text.substring(start, pos);
            return switch (word) {
                case "true" -> Boolean.TRUE;
                case "false" -> Boolean.FALSE;
                default -> word;
            };
        }

        private String string() {
            char quote = next();
            StringBuilder out = null;
            int runStart = pos;
            while (true) {
                if (pos >= text.length()) {
                    throw error("unterminated string");
                }
                char c = text.charAt(pos++);
                if (c == quote) {
                    if (out == null) {
                        return text.substring(runStart, pos - 1);
                    }
                    out.append(text, runStart, pos - 1);
                    return out.toString();
                }
                if (c == '\\') {
                    if (out == null) {
                        out = new StringBuilder();
                    }
                    out.append(text, runStart, pos - 1);
                    out.append(escape());
                    runStart = pos;
                }
            }
        }

        private char escape() {
            char c = next();
            return switch (c) {
                case '"', '\\', '/', '\'' -> c;
                case 'b' -> '\b';
                case 't' -> '\t';
                case 'n' -> '\n';
                case 'f' -> '\f';
                case 'r' -> '\r';
                case 'u' -> {
                    if (pos + 4 > text.length()) {
                        throw error("truncated \\u escape");
                    }
                    try {
                        char decoded = (char) Integer.parseInt(text.substring(pos, pos + 4), 16);
                        pos += 4;
                        yield decoded;
                    } catch (NumberFormatException e) {
                        throw error("bad \\u escape");
                    }
                }
                default -> throw error("bad escape '\\" + c + "'");
            };
        }

        private Object number() {
            int start = pos;
            if (peek() == '-') {
                pos++;
            }
            boolean integral = true;
            while (pos < text.length()) {
                char c = text.charAt(pos);
                if (c >= '0' && c <= '9') {
                    pos++;
                } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
                    integral = false;
                    pos++;
                } else {
                    break;
                }
            }
            String digits = text.substring(start, pos);
            try {
                if (!integral) {
                    return Double.parseDouble(digits);
                }
                BigInteger value = new BigInteger(digits);
                return value.bitLength() < 64 ? (Object) value.longValue() : value;
            } catch (NumberFormatException e) {
                throw error("bad number '" + digits + "'");
            }
        }

        private Object literal(String word, Object value) {
            if (!text.startsWith(word, pos)) {
                throw error("unexpected token");
            }
            pos += word.length();
            return value;
        }

        void skipWhitespace() {
            while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
                pos++;
            }
        }

        private char peek() {
            return pos < text.length() ? text.charAt(pos) : '\0';
        }

        private char next() {
            if (pos >= text.length()) {
                throw error("unexpected end of JSON");
            }
            return text.charAt(pos++);
        }

        private void expect(char c) {
            if (next() != c) {
                pos--;
                throw error("expected '" + c + "'");
            }
        }

        JsonException error(String what) {
            return new JsonException(what + " at offset " + pos);
        }
    }
}
