package io.basalt.broker.protocol;

import io.basalt.remoting.json.JsonException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A typed view of one parsed JSON object for reading a body, and the builder of one for writing it.
 *
 * <p>Reading: a missing or {@code null} property gives the supplied default, as fastjson leaves a
 * Java field at its initial value; a property of the wrong type is a {@link JsonException} naming
 * it. Writing: {@link #fields()} keeps property names sorted, as fastjson writes them.
 */
public final class JsonObject {

    private final Map<?, ?> map;

    private JsonObject(Map<?, ?> map) {
        this.map = map;
    }

    /** The parsed tree must be an object. */
    public static JsonObject of(Object tree, String what) {
        if (tree instanceof Map<?, ?> m) {
            return new JsonObject(m);
        }
        throw new JsonException(what + ": expected a JSON object, got " + describe(tree));
    }

    /** Parses a body that must be one JSON object. */
    public static JsonObject parse(byte[] body, String what) {
        return of(Json.parse(body), what);
    }

    /** A new, empty, name-sorted property map for writing a body. */
    static Map<String, Object> fields() {
        return new TreeMap<>();
    }

    /** A map that keeps insertion order, for maps whose keys are written unquoted. */
    static <K> Map<K, Object> ordered() {
        return new LinkedHashMap<>();
    }

    Object raw(String name) {
        return map.get(name);
    }

    String string(String name, String fallback) {
        Object value = map.get(name);
        if (value == null) {
            return fallback;
        }
        if (value instanceof String s) {
            return s;
        }
        if (value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        throw wrongType(name, "a string", value);
    }

    long longValue(String name, long fallback) {
        Object value = map.get(name);
        if (value == null) {
            return fallback;
        }
        return toLong(name, value);
    }

    int intValue(String name, int fallback) {
        long value = longValue(name, fallback);
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw new JsonException("property '" + name + "': " + value + " does not fit an int");
        }
        return (int) value;
    }

    double doubleValue(String name, double fallback) {
        Object value = map.get(name);
        if (value == null) {
            return fallback;
        }
        if (value instanceof Number n) {
            return n.doubleValue();
        }
        if (value instanceof String s) {
            try {
                return Double.parseDouble(s);
            } catch (NumberFormatException e) {
                throw wrongType(name, "a number", value);
            }
        }
        throw wrongType(name, "a number", value);
    }

    boolean bool(String name, boolean fallback) {
        Object value = map.get(name);
        if (value == null) {
            return fallback;
        }
        if (value instanceof Boolean b) {
            return b;
        }
        if (value instanceof String s && (s.equals("true") || s.equals("false"))) {
            return Boolean.parseBoolean(s);
        }
        if (value instanceof Number n) {
            return n.longValue() != 0;
        }
        throw wrongType(name, "a boolean", value);
    }

    JsonObject object(String name) {
        Object value = map.get(name);
        if (value == null) {
            return null;
        }
        if (value instanceof Map<?, ?> m) {
            return new JsonObject(m);
        }
        throw wrongType(name, "an object", value);
    }

    /** An array property as a list of converted items; missing gives an empty list. */
    <T> List<T> list(String name, Function<Object, T> item) {
        Object value = map.get(name);
        if (value != null && !(value instanceof Collection<?>)) {
            throw wrongType(name, "an array", value);
        }
        return asList(value, item);
    }

    /** An array property as an insertion-ordered set of converted items; missing gives an empty set. */
    <T> Set<T> set(String name, Function<Object, T> item) {
        return Collections.unmodifiableSet(new LinkedHashSet<>(list(name, item)));
    }

    /** A JSON array (or null, giving an empty list) as a list of converted items. */
    static <T> List<T> asList(Object value, Function<Object, T> item) {
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof Collection<?> items)) {
            throw new JsonException("expected an array, got " + describe(value));
        }
        List<T> result = new ArrayList<>(items.size());
        for (Object element : items) {
            if (element != null) {
                result.add(item.apply(element));
            }
        }
        return List.copyOf(result);
    }

    /** An object property whose keys (strings, numbers or objects) and values are converted. */
    <K, V> Map<K, V> map(String name, Function<Object, K> key, Function<Object, V> value) {
        Object raw = map.get(name);
        if (raw != null && !(raw instanceof Map<?, ?>)) {
            throw wrongType(name, "an object", raw);
        }
        return asMap(raw, key, value);
    }

    /** A JSON object (or null, giving an empty map) with converted keys and values; null values are dropped. */
    static <K, V> Map<K, V> asMap(Object raw, Function<Object, K> key, Function<Object, V> value) {
        if (raw == null) {
            return Map.of();
        }
        if (!(raw instanceof Map<?, ?> entries)) {
            throw new JsonException("expected an object, got " + describe(raw));
        }
        Map<K, V> result = new LinkedHashMap<>();
        for (Map.Entry<?, ?> entry : entries.entrySet()) {
            if (entry.getValue() != null) {
                result.put(key.apply(entry.getKey()), value.apply(entry.getValue()));
            }
        }
        return Collections.unmodifiableMap(result);
    }

    static String asString(Object value) {
        if (value instanceof String s) {
            return s;
        }
        if (value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        throw new JsonException("expected a string, got " + describe(value));
    }

    static long asLong(Object value) {
        return toLong("(element)", value);
    }

    private static long toLong(String name, Object value) {
        if (value instanceof Long l) {
            return l;
        }
        if (value instanceof BigInteger big) {
            if (big.bitLength() < 64) {
                return big.longValue();
            }
            throw new JsonException("property '" + name + "': " + big + " does not fit a long");
        }
        if (value instanceof Number n) {
            double d = n.doubleValue();
            if (d == Math.rint(d) && Math.abs(d) < 0x1p63) {
                return (long) d;
            }
            throw new JsonException("property '" + name + "': " + n + " is not an integer");
        }
        if (value instanceof String s) {
            try {
                return Long.parseLong(s.trim());
            } catch (NumberFormatException e) {
                throw wrongType(name, "an integer", value);
            }
        }
        throw wrongType(name, "an integer", value);
    }

    private static JsonException wrongType(String name, String expected, Object value) {
        return new JsonException("property '" + name + "': expected " + expected + ", got " + describe(value));
    }

    private static String describe(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof Map<?, ?>) {
            return "an object";
        }
        if (value instanceof Collection<?>) {
            return "an array";
        }
        String text = value.toString();
        return value.getClass().getSimpleName() + " '" + (text.length() > 40 ? text.substring(0, 40) + "..." : text) + "'";
    }
}
