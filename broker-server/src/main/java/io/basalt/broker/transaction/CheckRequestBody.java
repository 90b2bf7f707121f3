package io.basalt.broker.transaction;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import io.basalt.store.MessageProperties;
import io.basalt.store.StoredMessage;

/**
 * The body of a CHECK_TRANSACTION_STATE request: the message as one V1 record, the layout RocketMQ's
 * {@code MessageDecoder.encode(msg, false)} writes and its client decodes. It is the half message's check copy with
 * topic = {@code REAL_TOPIC} and queue id = {@code REAL_QID}; the queue and CommitLog offsets are the copy's, the
 * body is as stored (still compressed if the sysFlag says so), the properties are serialized from the map given.
 * No record CRC property is written; the store size is the encoded length.
 *
 * <pre>
 *   storeSize 4 | magic 4 (0xDAA320A7) | bodyCrc 4 | queueId 4 | flag 4 | queueOffset 8 | commitLogOffset 8 |
 *   sysFlag 4 | bornTimestamp 8 | bornHost 4|16 + port 4 | storeTimestamp 8 | storeHost 4|16 + port 4 |
 *   reconsumeTimes 4 | preparedTransactionOffset 8 | bodyLength 4 + body | topicLength 1 + topic |
 *   propertiesLength 2 + properties
 * </pre>
 */
final class CheckRequestBody {
    static final int MAGIC_V1 = 0xDAA320A7;
    private static final int BORN_HOST_V6_FLAG = 0x1 << 4;
    private static final int STORE_HOST_V6_FLAG = 0x1 << 5;

    private CheckRequestBody() {
    }

    /**
     * @param copy       the check copy as stored (its offsets, hosts, times and body are used)
     * @param topic      the topic to name (the half message's REAL_TOPIC)
     * @param queueId    the queue to name (its REAL_QID)
     * @param properties the properties to write
     */
    static byte[] encode(StoredMessage copy, String topic, int queueId, Map<String, String> properties) {
        byte[] body = copy.body() == null ? new byte[0] : copy.body();
        byte[] topicBytes = topic.getBytes(StandardCharsets.UTF_8);
        byte[] propertiesBytes = MessageProperties.toPropertiesString(properties).getBytes(StandardCharsets.UTF_8);
        byte[] bornAddress = copy.bornHost().getAddress().getAddress();
        byte[] storeAddress = copy.storeHost().getAddress().getAddress();
        int sysFlag = copy.sysFlag() & ~(BORN_HOST_V6_FLAG | STORE_HOST_V6_FLAG);
        sysFlag |= bornAddress.length == 16 ? BORN_HOST_V6_FLAG : 0;
        sysFlag |= storeAddress.length == 16 ? STORE_HOST_V6_FLAG : 0;
        int size = 4 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 8 + bornAddress.length + 4 + 8 + storeAddress.length + 4 + 4 + 8
            + 4 + body.length + 1 + topicBytes.length + 2 + propertiesBytes.length;
        ByteBuffer out = ByteBuffer.allocate(size);
        out.putInt(size);
        out.putInt(MAGIC_V1);
        out.putInt(copy.bodyCrc());
        out.putInt(queueId);
        out.putInt(copy.flag());
        out.putLong(copy.queueOffset());
        out.putLong(copy.physicalOffset());
        out.putInt(sysFlag);
        out.putLong(copy.bornTimestamp());
        putHost(out, bornAddress, copy.bornHost());
        out.putLong(copy.storeTimestamp());
        putHost(out, storeAddress, copy.storeHost());
        out.putInt(copy.reconsumeTimes());
        out.putLong(copy.preparedTransactionOffset());
        out.putInt(body.length);
        out.put(body);
        out.put((byte) topicBytes.length);
        out.put(topicBytes);
        out.putShort((short) propertiesBytes.length);
        out.put(propertiesBytes);
        return out.array();
    }

    private static void putHost(ByteBuffer out, byte[] address, InetSocketAddress host) {
        out.put(address);
        out.putInt(host.getPort());
    }
}
