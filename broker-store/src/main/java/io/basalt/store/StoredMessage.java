package io.basalt.store;

import io.basalt.store.commitlog.CommitLog;
import io.basalt.store.commitlog.MessageRecordDecoder;
import io.basalt.store.commitlog.OffsetMessageId;

import java.net.InetSocketAddress;
import java.util.Map;

/**
 * A message as read back from a CommitLog record, every field decoded. Produced by
 * {@link MessageRecordDecoder#decode}; for lookups by id, admin tools and tests, not the dispatch path.
 *
 * @param magicCode    V1 or V2 magic of the record
 * @param body         the stored body (still compressed if {@code sysFlag} says so)
 * @param properties   the raw properties string ({@code name \u0001 value \u0002}...)
 */
public record StoredMessage(int storeSize, int magicCode, int bodyCrc, int queueId, int flag, long queueOffset,
                            long physicalOffset, int sysFlag, long bornTimestamp, InetSocketAddress bornHost,
                            long storeTimestamp, InetSocketAddress storeHost, int reconsumeTimes,
                            long preparedTransactionOffset, byte[] body, String topic, String properties) {

    /** The properties parsed into a new map. */
    public Map<String, String> propertyMap() {
        return MessageProperties.parse(properties);
    }

    /** One property, or null. */
    public String property(String name) {
        return propertyMap().get(name);
    }

    /** RocketMQ's offset message id: store host, port and physical offset in hex. */
    public String offsetMsgId() {
        return OffsetMessageId.encode(storeHost, physicalOffset);
    }
}
