package io.basalt.broker.pop;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import io.basalt.store.MessageProperties;

/**
 * One stored CommitLog record as the pop response carries it (RocketMQ's record layout, V1 or V2 magic): its queue
 * and CommitLog offsets, and the same record with another topic and added properties, which is how a message read
 * from a POP retry topic goes to the client (original topic, {@code POP_CK}). Immutable.
 */
final class StoredRecord {
    /** RocketMQ's MESSAGE_MAGIC_CODE_V2: the topic length takes 2 bytes instead of 1. */
    private static final int MAGIC_V2 = -626843477;
    private static final int BORNHOST_V6_FLAG = 0x1 << 4;
    private static final int STOREHOST_V6_FLAG = 0x1 << 5;
    private static final String RECORD_CRC_PROPERTY = "__CRC32#";

    private final byte[] bytes;

    StoredRecord(ByteBuffer record) {
        ByteBuffer b = record.duplicate();
        this.bytes = new byte[b.remaining()];
        b.get(bytes);
    }

    byte[] bytes() {
        return bytes;
    }

    long queueOffset() {
        return ByteBuffer.wrap(bytes).getLong(20);
    }

    long physicalOffset() {
        return ByteBuffer.wrap(bytes).getLong(28);
    }

    /** The record with {@code topic} instead of its own and {@code extra} set in its properties. */
    byte[] withTopicAndProperties(String topic, Map<String, String> extra) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        int magic = b.getInt(4);
        int sysFlag = b.getInt(36);
        int pos = 48 + ((sysFlag & BORNHOST_V6_FLAG) != 0 ? 20 : 8) + 8 + ((sysFlag & STOREHOST_V6_FLAG) != 0 ? 20 : 8)
            + 4 + 8;
        int bodyLength = b.getInt(pos);
        int bodyEnd = pos + 4 + bodyLength;
        int topicLength = magic == MAGIC_V2 ? b.getShort(bodyEnd) : b.get(bodyEnd) & 0xFF;
        int topicBytes = magic == MAGIC_V2 ? 2 : 1;
        int propertiesAt = bodyEnd + topicBytes + topicLength;
        int propertiesLength = b.getShort(propertiesAt) & 0xFFFF;
        String properties = new String(bytes, propertiesAt + 2, propertiesLength, StandardCharsets.UTF_8);
        Map<String, String> map = MessageProperties.parse(properties);
        map.remove(RECORD_CRC_PROPERTY);
        map.putAll(extra);
        byte[] newTopic = topic.getBytes(StandardCharsets.UTF_8);
        byte[] newProperties = MessageProperties.toPropertiesString(map).getBytes(StandardCharsets.UTF_8);
        int size = bodyEnd + topicBytes + newTopic.length + 2 + newProperties.length;
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put(bytes, 0, bodyEnd);
        out.putInt(0, size);
        if (magic == MAGIC_V2) {
            out.putShort((short) newTopic.length);
        } else {
            out.put((byte) newTopic.length);
        }
        out.put(newTopic);
        out.putShort((short) newProperties.length);
        out.put(newProperties);
        return out.array();
    }
}
