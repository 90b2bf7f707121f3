package io.basalt.remoting.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * The JSON header serialization ({@link SerializeType#JSON}).
 *
 * <p>Encoding reproduces, byte for byte, what fastjson writes for RocketMQ's {@code RemotingCommand}:
 * properties in alphabetical order ({@code code, extFields, flag, language, opaque, remark,
 * serializeTypeCurrentRPC, version}), null properties and null map values left out, the language as
 * its name, strings escaped as fastjson escapes them. Decoding accepts any well-formed JSON object
 * (other clients order and space their fields differently) and ignores unknown properties.
 * Stateless; any thread.
 */
final class JsonHeaderCodec {
    private static final JsonFactory FACTORY = JsonFactory.builder().build();
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private JsonHeaderCodec() {
    }

    static void encode(RemotingCommand cmd, ByteWriter out) {
        out.writeAscii("{\"code\":");
        out.writeDecimal(cmd.code());
        Map<String, String> extFields = cmd.extFields();
        if (extFields != null) {
            out.writeAscii(",\"extFields\":{");
            boolean first = true;
            for (Map.Entry<String, String> entry : extFields.entrySet()) {
                if (entry.getValue() == null || entry.getKey() == null) {
                    continue;
                }
                if (!first) {
                    out.writeByte(',');
                }
                first = false;
                writeString(out, entry.getKey());
                out.writeByte(':');
                writeString(out, entry.getValue());
            }
            out.writeByte('}');
        }
        out.writeAscii(",\"flag\":");
        out.writeDecimal(cmd.flag());
        out.writeAscii(",\"language\":\"");
        out.writeAscii(cmd.language().name());
        out.writeAscii("\",\"opaque\":");
        out.writeDecimal(cmd.opaque());
        if (cmd.remark() != null) {
            out.writeAscii(",\"remark\":");
            writeString(out, cmd.remark());
        }
        out.writeAscii(",\"serializeTypeCurrentRPC\":\"JSON\",\"version\":");
        out.writeDecimal(cmd.version());
        out.writeByte('}');
    }

    /** fastjson's default escaping: short escapes for \b \t \n \f \r " \, {@code \\uXXXX} for other controls. */
    private static void writeString(ByteWriter out, String text) {
        out.writeByte('"');
        int runStart = 0;
        int length = text.length();
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            String shortEscape = switch (c) {
                case '"' -> "\\\"";
                case '\\' -> "\\\\";
                case '\b' -> "\\b";
                case '\t' -> "\\t";
                case '\n' -> "\\n";
                case '\f' -> "\\f";
                case '\r' -> "\\r";
                default -> null;
            };
            boolean unicodeEscape = shortEscape == null
                && (c < 0x20 || (c >= 0x7F && c < 0xA0) || c == '\u2028' || c == '\u2029');
            if (shortEscape == null && !unicodeEscape) {
                continue;
            }
            if (i > runStart) {
                out.writeUtf8(text.subSequence(runStart, i));
            }
            runStart = i + 1;
            if (shortEscape != null) {
                out.writeAscii(shortEscape);
            } else {
                out.writeAscii("\\u");
                out.writeByte(HEX[(c >>> 12) & 15]);
                out.writeByte(HEX[(c >>> 8) & 15]);
                out.writeByte(HEX[(c >>> 4) & 15]);
                out.writeByte(HEX[c & 15]);
            }
        }
        if (runStart == 0) {
            out.writeUtf8(text);
        } else if (runStart < length) {
            out.writeUtf8(text.subSequence(runStart, length));
        }
        out.writeByte('"');
    }

    static RemotingCommand decode(byte[] bytes, int offset, int length) throws RemotingCommandException {
        try (JsonParser parser = FACTORY.createParser(bytes, offset, length)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new RemotingCommandException("JSON header is not an object");
            }
            int code = 0;
            int version = 0;
            int opaque = 0;
            int flag = 0;
            String remark = null;
            LanguageCode language = LanguageCode.JAVA;
            HashMap<String, String> extFields = null;
            JsonToken token;
            while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                JsonToken value = parser.nextToken();
                switch (name) {
                    case "code" -> code = intValue(parser, value, name);
                    case "version" -> version = intValue(parser, value, name);
                    case "opaque" -> opaque = intValue(parser, value, name);
                    case "flag" -> flag = intValue(parser, value, name);
                    case "remark" -> remark = value == JsonToken.VALUE_NULL ? null : scalarText(parser, value, name);
                    case "language" -> language = value == JsonToken.VALUE_NUMBER_INT
                        ? LanguageCode.fromCode(parser.getIntValue())
                        : LanguageCode.fromName(scalarText(parser, value, name));
                    case "extFields" -> extFields = value == JsonToken.VALUE_NULL ? null : readMap(parser, value);
                    default -> parser.skipChildren();
                }
            }
            if (token != JsonToken.END_OBJECT || parser.nextToken() != null) {
                throw new RemotingCommandException("JSON header has trailing content");
            }
            RemotingCommand cmd = new RemotingCommand(code, language, version, opaque, flag, remark, extFields);
            cmd.setSerializeType(SerializeType.JSON);
            return cmd;
        } catch (JsonProcessingException e) {
            throw new RemotingCommandException("JSON header does not parse: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new RemotingCommandException("JSON header does not parse: " + e.getMessage(), e);
        }
    }

    private static HashMap<String, String> readMap(JsonParser parser, JsonToken start)
        throws IOException, RemotingCommandException {
        if (start != JsonToken.START_OBJECT) {
            throw new RemotingCommandException("extFields is not an object");
        }
        HashMap<String, String> map = new HashMap<>();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String key = parser.currentName();
            JsonToken value = parser.nextToken();
            if (value != JsonToken.VALUE_NULL) {
                map.put(key, scalarText(parser, value, key));
            }
        }
        return map;
    }

    private static String scalarText(JsonParser parser, JsonToken token, String name)
        throws IOException, RemotingCommandException {
        if (token == null || !token.isScalarValue()) {
            throw new RemotingCommandException("JSON property " + name + " is not a scalar");
        }
        return parser.getText();
    }

    private static int intValue(JsonParser parser, JsonToken token, String name)
        throws IOException, RemotingCommandException {
        if (token == JsonToken.VALUE_NUMBER_INT) {
            return parser.getIntValue();
        }
        if (token == JsonToken.VALUE_STRING) {
            try {
                return Integer.parseInt(parser.getText().trim());
            } catch (NumberFormatException e) {
                throw new RemotingCommandException("JSON property " + name + " is not an int: " + parser.getText());
            }
        }
        throw new RemotingCommandException("JSON property " + name + " is not an int");
    }
}
