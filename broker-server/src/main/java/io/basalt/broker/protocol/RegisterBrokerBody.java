package io.basalt.broker.protocol;

import io.basalt.broker.topic.TopicConfig;
import io.basalt.remoting.json.JsonException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.InflaterInputStream;

/**
 * RocketMQ's {@code RegisterBrokerBody}: the REGISTER_BROKER request body, the broker's topic table
 * (as RocketMQ's {@code TopicConfigAndMappingSerializeWrapper}, with empty static-topic mappings).
 *
 * <p>Two encodings, chosen by the request header's {@code compressed} flag. Plain: JSON. Compressed
 * (RocketMQ's {@code compressedRegister}): a zlib stream (best compression) of big-endian
 * length-prefixed parts: {@code [len][DataVersion JSON] [count] ([len][TopicConfig compact form])*
 * [len][filter server list JSON] [mapping count = 0]}.
 */
public record RegisterBrokerBody(TopicConfigSerializeWrapper topicConfigSerializeWrapper, List<String> filterServerList) {

    public RegisterBrokerBody {
        filterServerList = List.copyOf(filterServerList);
    }

    public byte[] encode(boolean compressed) {
        return compressed ? encodeCompressed() : Json.encode(toJson());
    }

    private Map<String, Object> toJson() {
        Map<String, Object> wrapper = topicConfigSerializeWrapper.toJson();
        wrapper.put("mappingDataVersion", new DataVersion(0L, topicConfigSerializeWrapper.dataVersion().timestamp(), 0L).toJson());
        wrapper.put("topicQueueMappingDetailMap", Map.of());
        wrapper.put("topicQueueMappingInfoMap", Map.of());
        Map<String, Object> json = JsonObject.fields();
        json.put("filterServerList", filterServerList);
        json.put("topicConfigSerializeWrapper", wrapper);
        return json;
    }

    private byte[] encodeCompressed() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION);
        try (DataOutputStream out = new DataOutputStream(new DeflaterOutputStream(bytes, deflater))) {
            writePart(out, topicConfigSerializeWrapper.dataVersion().encode());
            out.writeInt(topicConfigSerializeWrapper.topicConfigTable().size());
            for (TopicConfig config : topicConfigSerializeWrapper.topicConfigTable().values()) {
                writePart(out, encodeCompact(config).getBytes(StandardCharsets.UTF_8));
            }
            writePart(out, Json.encode(filterServerList));
            out.writeInt(0);
        } catch (IOException e) {
            throw new UncheckedIOException("compressing into memory cannot fail", e);
        } finally {
            deflater.end();
        }
        return bytes.toByteArray();
    }

    private static void writePart(DataOutputStream out, byte[] part) throws IOException {
        out.writeInt(part.length);
        out.write(part);
    }

    /** @throws JsonException if the body is malformed in either encoding */
    public static RegisterBrokerBody decode(byte[] body, boolean compressed) {
        if (!compressed) {
            JsonObject json = JsonObject.parse(body, "RegisterBrokerBody");
            Object wrapper = json.raw("topicConfigSerializeWrapper");
            return new RegisterBrokerBody(wrapper == null
                ? new TopicConfigSerializeWrapper(Map.of(), new DataVersion(0L, 0L, 0L))
                : TopicConfigSerializeWrapper.fromJson(wrapper), json.list("filterServerList", JsonObject::asString));
        }
        try (DataInputStream in = new DataInputStream(new InflaterInputStream(new ByteArrayInputStream(body)))) {
            DataVersion version = DataVersion.fromJson(Json.parse(readPart(in)));
            int topics = in.readInt();
            Map<String, TopicConfig> table = new LinkedHashMap<>();
            for (int i = 0; i < topics; i++) {
                TopicConfig config = decodeCompact(new String(readPart(in), StandardCharsets.UTF_8));
                table.put(config.topicName(), config);
            }
            List<String> filterServers = JsonObject.asList(Json.parse(readPart(in)), JsonObject::asString);
            return new RegisterBrokerBody(new TopicConfigSerializeWrapper(table, version), filterServers);
        } catch (IOException e) {
            throw new JsonException("bad compressed RegisterBrokerBody: " + e.getMessage());
        }
    }

    private static byte[] readPart(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > 64 << 20) {
            throw new JsonException("bad part length " + length + " in a compressed RegisterBrokerBody");
        }
        byte[] part = new byte[length];
        in.readFully(part);
        return part;
    }

    /** RocketMQ's {@code TopicConfig.encode()}: {@code name read write perm filterType {attributes}}. */
    private static String encodeCompact(TopicConfig config) {
        return config.topicName() + ' ' + config.readQueueNums() + ' ' + config.writeQueueNums() + ' ' + config.perm()
            + ' ' + config.topicFilterType() + ' ' + Json.write(new TreeMap<>(config.attributes()));
    }

    private static TopicConfig decodeCompact(String text) {
        String[] parts = text.split(" ", 6);
        if (parts.length < 5) {
            throw new JsonException("bad topic config '" + text + "' in a compressed RegisterBrokerBody");
        }
        try {
            Map<String, String> attributes = parts.length == 6
                ? JsonObject.asMap(Json.parse(parts[5]), JsonObject::asString, JsonObject::asString)
                : Map.of();
            return new TopicConfig(parts[0], Integer.parseInt(parts[1]), Integer.parseInt(parts[2]),
                Integer.parseInt(parts[3]), parts[4], 0, false, attributes);
        } catch (NumberFormatException e) {
            throw new JsonException("bad topic config '" + text + "' in a compressed RegisterBrokerBody");
        }
    }
}
