package io.basalt.broker.transaction;

import java.net.InetSocketAddress;
import java.util.Map;

import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.StoredMessage;

/**
 * Reading a half record's transaction properties, and building the records the back-check appends: a check copy
 * (the next check's identity), an immunity copy, a copy that keeps the scan's place while no producer can be asked,
 * the record given up into {@code TRANS_CHECK_MAX_TIME_TOPIC} and the record a resume puts back. Every copy keeps
 * the half record's body, flag, sysFlag, born time and host and reconsume times; its store host is this broker.
 */
final class HalfMessages {
    /** A property the store may end a record with; the store adds its own to a copy. */
    private static final String RECORD_CRC_PROPERTY = "__CRC32#";
    private static final java.util.List<String> DELAYING_PROPERTIES = java.util.List.of(
        MessageProperties.DELAY_TIME_LEVEL, "TIMER_DELIVER_MS", "TIMER_DELAY_SEC", "TIMER_DELAY_MS", "TIMER_DEL_UNIQKEY");

    private HalfMessages() {
    }

    /** REAL_TOPIC, or the record's own topic when it has none. */
    static String realTopic(StoredMessage half) {
        String real = half.property(TransactionalMessages.PROPERTY_REAL_TOPIC);
        return real == null ? half.topic() : real;
    }

    /** REAL_QID, or 0 when it has none or it is not a number. */
    static int realQueueId(StoredMessage half) {
        try {
            String qid = half.property(TransactionalMessages.PROPERTY_REAL_QUEUE_ID);
            return qid == null ? 0 : Integer.parseInt(qid.strip());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    static String producerGroup(Map<String, String> properties) {
        return properties.get(TransactionalMessages.PROPERTY_PRODUCER_GROUP);
    }

    static String transactionId(Map<String, String> properties) {
        String id = properties.get(TransactionalMessages.PROPERTY_TRANSACTION_ID);
        return id != null ? id : properties.get(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX);
    }

    /**
     * TRANSACTION_CHECK_TIMES: checks sent so far; 0 when absent or not a number (RocketMQ reads an unreadable
     * value as -1 and counts on from there, which also comes to 0 after the next check is counted).
     */
    static int checkTimes(Map<String, String> properties) {
        String times = properties.get(TransactionalMessages.PROPERTY_TRANSACTION_CHECK_TIMES);
        if (times == null) {
            return 0;
        }
        try {
            return Math.max(0, Integer.parseInt(times.strip()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * CHECK_IMMUNITY_TIME_IN_SECONDS in ms, or -1 when absent; a value that is not a number means
     * {@code transactionTimeOutMs}, as in RocketMQ.
     */
    static long immunityMs(Map<String, String> properties, long transactionTimeOutMs) {
        String seconds = properties.get(TransactionalMessages.PROPERTY_CHECK_IMMUNITY_TIME_IN_SECONDS);
        if (seconds == null) {
            return -1;
        }
        try {
            return Long.parseLong(seconds.strip()) * 1000;
        } catch (NumberFormatException e) {
            return transactionTimeOutMs;
        }
    }

    /** TRAN_PREPARED_QUEUE_OFFSET of an immunity copy, or -1. */
    static long preparedQueueOffset(Map<String, String> properties) {
        String offset = properties.get(TransactionalMessages.PROPERTY_TRANSACTION_PREPARED_QUEUE_OFFSET);
        if (offset == null) {
            return -1;
        }
        try {
            return Long.parseLong(offset.strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * A copy of {@code half} appended to RMQ_SYS_TRANS_HALF_TOPIC queue 0 with {@code properties}, less any delay
     * or timer property: the put steps would send such a copy to SCHEDULE_TOPIC_XXXX or the timer wheel, and from
     * there back into the half queue, round and round until its checks ran out (RocketMQ #1540). The half send
     * refuses them; a half message of an older client in a moved store may still carry one.
     */
    static BrokerMessage halfQueueCopy(StoredMessage half, Map<String, String> properties, InetSocketAddress storeHost) {
        DELAYING_PROPERTIES.forEach(properties::remove);
        // transaction bits NOT_TYPE, as on every half record, so that the copy is dispatched into the half queue
        return copy(half, TransactionalMessages.HALF_TOPIC, properties, storeHost,
            TransactionalMessages.withTransactionType(half.sysFlag(), TransactionalMessages.TRANSACTION_NOT_TYPE));
    }

    /** {@code half} given up: copied with its properties into TRANS_CHECK_MAX_TIME_TOPIC queue 0. */
    static BrokerMessage givenUpCopy(StoredMessage half, Map<String, String> properties, InetSocketAddress storeHost) {
        return copy(half, TransactionalMessages.CHECK_MAX_TIME_TOPIC, properties, storeHost, half.sysFlag());
    }

    private static BrokerMessage copy(StoredMessage half, String topic, Map<String, String> properties,
                                      InetSocketAddress storeHost, int sysFlag) {
        properties.remove(RECORD_CRC_PROPERTY);
        return BrokerMessage.builder()
            .topic(topic)
            .queueId(TransactionalMessages.HALF_QUEUE_ID)
            .flag(half.flag())
            .body(half.body())
            .propertiesString(MessageProperties.toPropertiesString(properties))
            .sysFlag(sysFlag)
            .bornTimestamp(half.bornTimestamp())
            .bornHost(half.bornHost())
            .storeHost(storeHost)
            .reconsumeTimes(half.reconsumeTimes())
            .build();
    }
}
