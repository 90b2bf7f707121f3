package io.basalt.remoting.json;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses JSON as leniently as fastjson 1.2.83's {@code JSON.parseObject} with its default features, into
 * the tree {@link FastjsonWriter} writes: {@link LinkedHashMap}s (keys in text order), {@link ArrayList}s,
 * {@link String}s, {@link Long}s (or {@link BigInteger}s), {@link Double}s, {@link Boolean}s and
 * {@code null}.
 *
 * <p>Beyond standard JSON it reads what fastjson writes or accepts: unquoted property names, number and
 * object map keys written unquoted ({@code {0:"a"}}, {@code {{"topic":"t"}:1}}), single-quoted strings,
 * control characters inside strings, and the escapes {@code \'}, {@code \v}, {@code \x41}, {@code \0} to
 * {@code \7} and {@code \F}.
 *
 * <p>Stateless; any thread.
 */
public final class FastjsonParser {

    /** Deeper nesting than this is refused rather than risking the stack of a service thread. */
    public static final int MAX_DEPTH = 64;

    private FastjsonParser() {
    }

    /** Parses UTF-8 JSON text. */
    public static Object parse(byte[] utf8) {
        if (utf8 == null || utf8.length == 0) {
            throw new JsonException("empty body, expected JSON");
        }
        return parse(new String(utf8, StandardCharsets.UTF_8));
    }

    /** Parses {@code length} bytes of UTF-8 JSON text from {@code offset}. */
    public static Object parse(byte[] utf8, int offset, int length) {
        if (length == 0) {
            throw new JsonException("empty body, expected JSON");
        }
        return parse(new String(utf8, offset, length, StandardCharsets.UTF_8));
    }

    /** Parses JSON text; anything but whitespace after the value is an error. */
    public static Object parse(String text) {
        return parse(text, true);
    }

    /**
     * As {@link #parse(byte[], int, int)}, with objects as {@link java.util.HashMap}s, keys in no particular
     * order: for a remoting header, parsed once per request, where the order does not matter.
     */
    public static Object parseUnordered(byte[] utf8, int offset, int length) {
        if (length == 0) {
            throw new JsonException("empty body, expected JSON");
        }
        return parse(new String(utf8, offset, length, StandardCharsets.UTF_8), false);
    }

    private static Object parse(String text, boolean ordered) {
        Cursor cursor = new Cursor(text, ordered);
        Object value = cursor.value(0);
        cursor.skipWhitespace();
        if (cursor.pos != text.length()) {
            throw cursor.error("unexpected text after the JSON value");
        }
        return value;
    }

    /** Recursive descent over one text; one instance per parse. */
    private static final class Cursor {
        private final String text;
        private final boolean ordered;
        private int pos;

        Cursor(String text, boolean ordered) {
            this.text = text;
            this.ordered = ordered;
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
            Map<Object, Object> map = ordered ? new LinkedHashMap<>() : new HashMap<>();
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

        /** The escapes fastjson's lexer reads ({@code JSONLexerBase.scanString}). */
        private char escape() {
            char c = next();
            return switch (c) {
                case '"', '\\', '/', '\'' -> c;
                case 'b' -> '\b';
                case 't' -> '\t';
                case 'n' -> '\n';
                case 'f', 'F' -> '\f';
                case 'r' -> '\r';
                case 'v' -> '\u000B';
                case '0', '1', '2', '3', '4', '5', '6', '7' -> (char) (c - '0');
                case 'x' -> (char) hex(2);
                case 'u' -> (char) hex(4);
                default -> throw error("bad escape '\\" + c + "'");
            };
        }

        private int hex(int digits) {
            if (pos + digits > text.length()) {
                throw error("truncated escape");
            }
            int value = 0;
            for (int i = 0; i < digits; i++) {
                int digit = Character.digit(text.charAt(pos + i), 16);
                if (digit < 0) {
                    throw error("bad hex digit in escape");
                }
                value = value << 4 | digit;
            }
            pos += digits;
            return value;
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
            int length = pos - start;
            if (integral && length > 0 && length <= 18 && !(length == 1 && text.charAt(start) == '-')) {
                // fits a long whatever the digits: no BigInteger for the ints every header carries
                boolean negative = text.charAt(start) == '-';
                long value = 0;
                for (int i = negative ? start + 1 : start; i < pos; i++) {
                    value = value * 10 + (text.charAt(i) - '0');
                }
                return negative ? -value : value;
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
