package io.basalt.broker.grpc;

import apache.rocketmq.v2.Digest;
import apache.rocketmq.v2.DigestType;
import apache.rocketmq.v2.Encoding;
import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.MessageType;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.SystemProperties;
import com.google.protobuf.ByteString;
import com.google.protobuf.Timestamp;
import io.basalt.broker.transaction.TransactionalMessages;
import io.basalt.store.MessageProperties;
import io.basalt.store.StoredMessage;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/** A stored message as a 5.x client's {@code apache.rocketmq.v2.Message} (§2.7 of the protocol notes). */
final class StoredMessageMapping {
    private StoredMessageMapping() {
    }

    /** {@code topic} is the topic to name (a half message's REAL_TOPIC), {@code queueId} its queue. */
    static Message toMessage(StoredMessage stored, String topic, int queueId) {
        Map<String, String> p = MessageProperties.parse(stored.properties());
        byte[] body = stored.body() == null ? new byte[0] : stored.body();
        SystemProperties.Builder system = SystemProperties.newBuilder()
            .setMessageId(p.getOrDefault(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX, stored.offsetMsgId()))
            .setBodyDigest(Digest.newBuilder().setType(DigestType.MD5).setChecksum(md5(body)))
            .setBodyEncoding((stored.sysFlag() & SendRequestMapping.SYSFLAG_COMPRESSED) != 0 ? Encoding.GZIP
                : Encoding.IDENTITY)
            .setMessageType(messageType(p))
            .setBornTimestamp(timestamp(stored.bornTimestamp()))
            .setBornHost(p.getOrDefault(SendRequestMapping.PROPERTY_BORN_HOST, host(stored.bornHost())))
            .setStoreTimestamp(timestamp(stored.storeTimestamp()))
            .setStoreHost(host(stored.storeHost()))
            .setQueueId(queueId)
            .setQueueOffset(stored.queueOffset())
            .setDeliveryAttempt(stored.reconsumeTimes() + 1);
        String tag = p.get(MessageProperties.TAGS);
        if (tag != null) {
            system.setTag(tag);
        }
        String keys = p.get(MessageProperties.KEYS);
        if (keys != null && !keys.isBlank()) {
            for (String key : keys.trim().split(MessageProperties.KEY_SEPARATOR)) {
                if (!key.isEmpty()) {
                    system.addKeys(key);
                }
            }
        }
        String deliverAt = p.get(SendRequestMapping.PROPERTY_TIMER_DELIVER_MS);
        if (deliverAt != null) {
            try {
                system.setDeliveryTimestamp(timestamp(Long.parseLong(deliverAt)));
            } catch (NumberFormatException ignored) {
                // not a time the client could use: left out
            }
        }
        String group = p.get(SendRequestMapping.PROPERTY_SHARDING_KEY);
        if (group != null) {
            system.setMessageGroup(group);
        }
        String trace = p.get(SendRequestMapping.PROPERTY_TRACE_CONTEXT);
        if (trace != null) {
            system.setTraceContext(trace);
        }
        Message.Builder m = Message.newBuilder().setTopic(Resource.newBuilder().setName(topic))
            .setSystemProperties(system).setBody(ByteString.copyFrom(body));
        p.forEach((name, value) -> {
            if (!SystemPropertyNames.NAMES.contains(name)) {
                m.putUserProperties(name, value);
            }
        });
        return m.build();
    }

    static MessageType messageType(Map<String, String> p) {
        if ("true".equals(p.get(TransactionalMessages.PROPERTY_TRANSACTION_PREPARED))) {
            return MessageType.TRANSACTION;
        }
        if (p.containsKey(MessageProperties.DELAY_TIME_LEVEL) || p.containsKey(SendRequestMapping.PROPERTY_TIMER_DELIVER_MS)
            || p.containsKey("TIMER_DELAY_SEC")) {
            return MessageType.DELAY;
        }
        if (p.containsKey(SendRequestMapping.PROPERTY_SHARDING_KEY)) {
            return MessageType.FIFO;
        }
        return MessageType.NORMAL;
    }

    static Timestamp timestamp(long millis) {
        return Timestamp.newBuilder().setSeconds(Math.floorDiv(millis, 1000))
            .setNanos((int) Math.floorMod(millis, 1000) * 1_000_000).build();
    }

    private static String host(InetSocketAddress a) {
        return a == null ? "" : a.getAddress().getHostAddress() + ":" + a.getPort();
    }

    private static String md5(byte[] body) {
        try {
            return HexFormat.of().withUpperCase().formatHex(MessageDigest.getInstance("MD5").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no MD5", e);
        }
    }
}
