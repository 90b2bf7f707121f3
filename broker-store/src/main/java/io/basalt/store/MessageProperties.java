package io.basalt.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The properties string of a record: {@code name \u0001 value \u0002} repeated, UTF-8 on disk.
 * Property names RocketMQ clients and tools rely on are constants here. Parsing follows RocketMQ's
 * {@code MessageDecoder.string2messageProperties}: an entry with an empty name or value is skipped.
 */
public final class MessageProperties {
    public static final char NAME_VALUE_SEPARATOR = 1;
    public static final char PROPERTY_SEPARATOR = 2;

    public static final String KEYS = "KEYS";
    public static final String TAGS = "TAGS";
    public static final String WAIT_STORE_MSG_OK = "WAIT";
    public static final String DELAY_TIME_LEVEL = "DELAY";
    public static final String UNIQ_CLIENT_MESSAGE_ID_KEYIDX = "UNIQ_KEY";
    /** Separator between the keys inside the KEYS property. */
    public static final String KEY_SEPARATOR = " ";

    private MessageProperties() {
    }

    /** Joins the map in its iteration order; entries with a null value are left out, as RocketMQ does. */
    public static String toPropertiesString(Map<String, String> properties) {
        if (properties == null || properties.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder(64);
        for (Map.Entry<String, String> e : properties.entrySet()) {
            if (e.getValue() == null) {
                continue;
            }
            sb.append(e.getKey()).append(NAME_VALUE_SEPARATOR).append(e.getValue()).append(PROPERTY_SEPARATOR);
        }
        return sb.toString();
    }

    /** Parses a properties string into a new mutable map. */
    public static Map<String, String> parse(String properties) {
        Map<String, String> map = new HashMap<>();
        if (properties == null) {
            return map;
        }
        int len = properties.length();
        int index = 0;
        while (index < len) {
            int end = properties.indexOf(PROPERTY_SEPARATOR, index);
            if (end < 0) {
                end = len;
            }
            int sep = properties.indexOf(NAME_VALUE_SEPARATOR, index);
            if (sep > index && sep < end - 1) {
                map.put(properties.substring(index, sep), properties.substring(sep + 1, end));
            }
            index = end + 1;
        }
        return map;
    }

    /**
     * Finds one property in the UTF-8 properties bytes {@code [position, position + length)} of a
     * buffer without decoding the others; null if absent. The buffer's position is unchanged.
     */
    public static String find(ByteBuffer buffer, int position, int length, String name) {
        byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        int end = position + length;
        int entry = position;
        while (entry < end) {
            int entryEnd = indexOf(buffer, entry, end, (byte) PROPERTY_SEPARATOR);
            int sep = indexOf(buffer, entry, entryEnd, (byte) NAME_VALUE_SEPARATOR);
            if (sep - entry == nameBytes.length && sep < entryEnd - 1 && regionEquals(buffer, entry, nameBytes)) {
                byte[] value = new byte[entryEnd - sep - 1];
                buffer.get(sep + 1, value);
                return new String(value, StandardCharsets.UTF_8);
            }
            entry = entryEnd + 1;
        }
        return null;
    }

    private static int indexOf(ByteBuffer buffer, int from, int end, byte b) {
        for (int i = from; i < end; i++) {
            if (buffer.get(i) == b) {
                return i;
            }
        }
        return end;
    }

    private static boolean regionEquals(ByteBuffer buffer, int position, byte[] bytes) {
        for (int i = 0; i < bytes.length; i++) {
            if (buffer.get(position + i) != bytes[i]) {
                return false;
            }
        }
        return true;
    }

    /** RocketMQ's tagsCode for a TAGS value: its String hash code, 0 when there are no tags. */
    public static long tagsCode(String tags) {
        return tags == null || tags.isEmpty() ? 0 : tags.hashCode();
    }
}
