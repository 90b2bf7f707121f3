package io.basalt.broker.grpc;

import apache.rocketmq.v2.Encoding;
import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.MessageType;
import apache.rocketmq.v2.SystemProperties;
import io.basalt.broker.topic.TopicValidator;
import io.basalt.broker.transaction.TransactionalMessages;
import io.basalt.remoting.protocol.SendMessageRequestHeader;
import io.basalt.store.MessageProperties;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A 5.x client's message as the SEND_MESSAGE header the broker's send processor executes (RocketMQ's proxy mapping,
 * §2.6.3): user properties, then the system properties under RocketMQ's names; producer group = topic; a
 * transactional message is a half message (TRAN_MSG, sysFlag prepared); a delivery time is a timer message
 * (TIMER_DELIVER_MS); a GZIP body is stored compressed as received.
 */
final class SendRequestMapping {
    static final int SYSFLAG_COMPRESSED = 0x1;
    static final String PROPERTY_SHARDING_KEY = "__SHARDINGKEY";
    static final String PROPERTY_TRACE_CONTEXT = "TRACE_CONTEXT";
    static final String PROPERTY_BORN_HOST = "__BORNHOST";
    static final String PROPERTY_BORN_TIMESTAMP = "BORN_TIMESTAMP";
    static final String PROPERTY_TIMER_DELIVER_MS = "TIMER_DELIVER_MS";
    static final String PROPERTY_RECONSUME_TIME = "RECONSUME_TIME";
    /** What RocketMQ's proxy puts in defaultTopicQueueNums (read only when a topic is auto-created). */
    static final int DEFAULT_TOPIC_QUEUE_NUMS = 4;

    private SendRequestMapping() {
    }

    /**
     * The send header the broker's send processor reads, built directly (no request fields written and parsed back).
     *
     * @param queueId  the queue the broker chose
     * @param bornHost the client's address, used when the message names none
     * @param nowMillis the born time used when the message has none
     */
    static SendMessageRequestHeader toHeader(Message m, int queueId, String bornHost, long nowMillis) {
        SystemProperties system = m.getSystemProperties();
        String topic = m.getTopic().getName();
        long bornTimestamp = system.hasBornTimestamp() ? SendMessageChecks.millis(system.getBornTimestamp()) : nowMillis;
        int sysFlag = 0;
        if (system.getBodyEncoding() == Encoding.GZIP) {
            sysFlag |= SYSFLAG_COMPRESSED;
        }
        if (system.getMessageType() == MessageType.TRANSACTION) {
            sysFlag |= TransactionalMessages.TRANSACTION_PREPARED_TYPE;
        }
        SendMessageRequestHeader header = new SendMessageRequestHeader();
        header.setProducerGroup(topic);
        header.setTopic(topic);
        header.setDefaultTopic(TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC);
        header.setDefaultTopicQueueNums(DEFAULT_TOPIC_QUEUE_NUMS);
        header.setQueueId(queueId);
        header.setSysFlag(sysFlag);
        header.setBornTimestamp(bornTimestamp);
        header.setFlag(0);
        header.setProperties(MessageProperties.toPropertiesString(properties(m, bornHost, bornTimestamp)));
        header.setReconsumeTimes(system.hasDeliveryAttempt() ? system.getDeliveryAttempt() : 0);
        header.setUnitMode(false);
        header.setBatch(false);
        return header;
    }

    static Map<String, String> properties(Message m, String bornHost, long bornTimestamp) {
        SystemProperties system = m.getSystemProperties();
        Map<String, String> p = new LinkedHashMap<>(m.getUserPropertiesMap());
        if (system.hasTag()) {
            p.put(MessageProperties.TAGS, system.getTag());
        }
        if (system.getKeysCount() > 0) {
            p.put(MessageProperties.KEYS, String.join(MessageProperties.KEY_SEPARATOR, system.getKeysList()));
        }
        p.put(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX, system.getMessageId());
        if (system.getMessageType() == MessageType.TRANSACTION) {
            p.put(TransactionalMessages.PROPERTY_TRANSACTION_PREPARED, "true");
            if (system.hasOrphanedTransactionRecoveryDuration()) {
                p.put(TransactionalMessages.PROPERTY_CHECK_IMMUNITY_TIME_IN_SECONDS,
                    Long.toString(system.getOrphanedTransactionRecoveryDuration().getSeconds()));
            }
        }
        if (system.hasDeliveryTimestamp()) {
            p.put(PROPERTY_TIMER_DELIVER_MS, Long.toString(SendMessageChecks.millis(system.getDeliveryTimestamp())));
        }
        if (system.hasDeliveryAttempt()) {
            p.put(PROPERTY_RECONSUME_TIME, Integer.toString(system.getDeliveryAttempt()));
        }
        p.put(TransactionalMessages.PROPERTY_PRODUCER_GROUP, m.getTopic().getName());
        if (system.hasMessageGroup()) {
            p.put(PROPERTY_SHARDING_KEY, system.getMessageGroup());
        }
        if (system.hasTraceContext()) {
            p.put(PROPERTY_TRACE_CONTEXT, system.getTraceContext());
        }
        p.put(PROPERTY_BORN_HOST, system.getBornHost().isEmpty() ? bornHost : system.getBornHost());
        p.put(PROPERTY_BORN_TIMESTAMP, Long.toString(bornTimestamp));
        return p;
    }
}
