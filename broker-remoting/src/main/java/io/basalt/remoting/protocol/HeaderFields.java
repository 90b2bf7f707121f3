package io.basalt.remoting.protocol;

import java.util.Map;

/** Typed reads of header fields from {@code extFields}, with RocketMQ's parsing rules. */
final class HeaderFields {
    private HeaderFields() {
    }

    static String string(Map<String, String> fields, String name) {
        return fields.get(name);
    }

    static String requireString(Map<String, String> fields, String name) throws RemotingCommandException {
        String value = fields.get(name);
        if (value == null) {
            throw missing(name);
        }
        return value;
    }

    static Integer int32(Map<String, String> fields, String name) throws RemotingCommandException {
        String value = fields.get(name);
        if (value == null) {
            return null;
        }
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw notNumber(name, value);
        }
    }

    static int requireInt32(Map<String, String> fields, String name) throws RemotingCommandException {
        Integer value = int32(fields, name);
        if (value == null) {
            throw missing(name);
        }
        return value;
    }

    static Long int64(Map<String, String> fields, String name) throws RemotingCommandException {
        String value = fields.get(name);
        if (value == null) {
            return null;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw notNumber(name, value);
        }
    }

    static long requireInt64(Map<String, String> fields, String name) throws RemotingCommandException {
        Long value = int64(fields, name);
        if (value == null) {
            throw missing(name);
        }
        return value;
    }

    /** As {@code Boolean.parseBoolean}: anything but "true" (any case) is false. */
    static Boolean bool(Map<String, String> fields, String name) {
        String value = fields.get(name);
        return value == null ? null : Boolean.parseBoolean(value);
    }

    static void put(CommandHeader.FieldWriter out, String name, Object value) {
        if (value != null) {
            out.put(name, value.toString());
        }
    }

    private static RemotingCommandException missing(String name) {
        return new RemotingCommandException("the custom field <" + name + "> is null");
    }

    private static RemotingCommandException notNumber(String name, String value) {
        return new RemotingCommandException("the custom field <" + name + "> is not a number: " + value);
    }
}
