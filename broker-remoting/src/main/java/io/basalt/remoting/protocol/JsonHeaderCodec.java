package io.basalt.remoting.protocol;

import io.basalt.remoting.json.FastjsonParser;
import io.basalt.remoting.json.FastjsonWriter;
import io.basalt.remoting.json.JsonException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The JSON header serialization ({@link SerializeType#JSON}), in fastjson's dialect through the one
 * writer and parser of {@link io.basalt.remoting.json}.
 *
 * <p>Encoding reproduces, byte for byte, what fastjson writes for RocketMQ's {@code RemotingCommand}:
 * properties in alphabetical order ({@code code, extFields, flag, language, opaque, remark,
 * serializeTypeCurrentRPC, version}), null properties and null map values left out, the language as
 * its name, strings escaped by {@link FastjsonWriter#writeString}. Decoding accepts whatever fastjson
 * reads (other clients order and space their fields differently, or quote them with {@code '}) and
 * ignores unknown properties.
 * Stateless; any thread.
 */
final class JsonHeaderCodec {

    /** Most headers are a few hundred characters; a builder grown past this is not kept for the next. */
    private static final int KEPT_BUILDER_CAPACITY = 16 * 1024;
    /** Every response and request is encoded through one: one builder per encoding thread, reused. */
    private static final ThreadLocal<StringBuilder> BUILDER = ThreadLocal.withInitial(() -> new StringBuilder(512));

    private JsonHeaderCodec() {
    }

    static void encode(RemotingCommand cmd, ByteWriter out) {
        StringBuilder json = BUILDER.get();
        json.setLength(0);
        try {
            encode(cmd, json);
            out.writeUtf8(json);
        } finally {
            if (json.capacity() > KEPT_BUILDER_CAPACITY) {
                BUILDER.remove();
            }
        }
    }

    private static void encode(RemotingCommand cmd, StringBuilder json) {
        json.append("{\"code\":");
        FastjsonWriter.writeLong(json, cmd.code());
        Map<String, String> extFields = cmd.extFields();
        if (extFields != null) {
            json.append(",\"extFields\":");
            FastjsonWriter.writeValue(json, extFields);
        }
        json.append(",\"flag\":");
        FastjsonWriter.writeLong(json, cmd.flag());
        json.append(",\"language\":");
        FastjsonWriter.writeString(json, cmd.language().name());
        json.append(",\"opaque\":");
        FastjsonWriter.writeLong(json, cmd.opaque());
        if (cmd.remark() != null) {
            json.append(",\"remark\":");
            FastjsonWriter.writeString(json, cmd.remark());
        }
        json.append(",\"serializeTypeCurrentRPC\":\"JSON\",\"version\":");
        FastjsonWriter.writeLong(json, cmd.version());
        json.append('}');
    }

    static RemotingCommand decode(byte[] bytes, int offset, int length) throws RemotingCommandException {
        Object tree;
        try {
            tree = FastjsonParser.parseUnordered(bytes, offset, length);
        } catch (JsonException e) {
            throw new RemotingCommandException("JSON header does not parse: " + e.getMessage(), e);
        }
        if (!(tree instanceof Map<?, ?> header)) {
            throw new RemotingCommandException("JSON header is not an object");
        }
        int code = 0;
        int version = 0;
        int opaque = 0;
        int flag = 0;
        String remark = null;
        LanguageCode language = LanguageCode.JAVA;
        HashMap<String, String> extFields = null;
        for (Map.Entry<?, ?> property : header.entrySet()) {
            if (!(property.getKey() instanceof String name)) {
                continue;
            }
            Object value = property.getValue();
            switch (name) {
                case "code" -> code = intValue(value, name);
                case "version" -> version = intValue(value, name);
                case "opaque" -> opaque = intValue(value, name);
                case "flag" -> flag = intValue(value, name);
                case "remark" -> remark = value == null ? null : scalarText(value, name);
                case "language" -> {
                    if (value instanceof Long number) {
                        language = LanguageCode.fromCode(intValue(number, name));
                    } else if (value != null) {
                        language = LanguageCode.fromName(scalarText(value, name));
                    }
                }
                case "extFields" -> extFields = value == null ? null : readMap(value);
                default -> {
                    // unknown properties (serializeTypeCurrentRPC, other clients' additions) are ignored
                }
            }
        }
        RemotingCommand cmd = new RemotingCommand(code, language, version, opaque, flag, remark, extFields);
        cmd.setSerializeType(SerializeType.JSON);
        return cmd;
    }

    @SuppressWarnings("unchecked")
    private static HashMap<String, String> readMap(Object value) throws RemotingCommandException {
        if (!(value instanceof Map<?, ?> entries)) {
            throw new RemotingCommandException("extFields is not an object");
        }
        if (entries instanceof HashMap<?, ?> parsed && onlyStrings(parsed)) {
            // the usual header: every key and value a string; the parser's map is the command's
            return (HashMap<String, String>) parsed;
        }
        HashMap<String, String> map = new HashMap<>();
        for (Map.Entry<?, ?> entry : entries.entrySet()) {
            String key = scalarText(entry.getKey(), "extFields key");
            if (entry.getValue() != null) {
                map.put(key, scalarText(entry.getValue(), key));
            }
        }
        return map;
    }

    private static boolean onlyStrings(Map<?, ?> entries) {
        for (Map.Entry<?, ?> entry : entries.entrySet()) {
            if (!(entry.getKey() instanceof String) || !(entry.getValue() instanceof String)) {
                return false;
            }
        }
        return true;
    }

    /** A string, number or boolean as the text fastjson gives a String field for it. */
    private static String scalarText(Object value, String name) throws RemotingCommandException {
        if (value instanceof Map<?, ?> || value instanceof Collection<?> || value == null) {
            throw new RemotingCommandException("JSON property " + name + " is not a scalar");
        }
        return value.toString();
    }

    private static int intValue(Object value, String name) throws RemotingCommandException {
        if (value instanceof Long number && number >= Integer.MIN_VALUE && number <= Integer.MAX_VALUE) {
            return number.intValue();
        }
        if (value instanceof String text) {
            try {
                return Integer.parseInt(text.trim());
            } catch (NumberFormatException e) {
                throw new RemotingCommandException("JSON property " + name + " is not an int: " + text);
            }
        }
        throw new RemotingCommandException("JSON property " + name + " is not an int");
    }
}
