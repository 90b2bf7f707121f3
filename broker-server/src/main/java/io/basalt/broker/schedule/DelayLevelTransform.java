package io.basalt.broker.schedule;

import java.util.HashMap;
import java.util.Map;

import io.basalt.broker.transaction.TransactionalMessages;
import io.basalt.store.BrokerMessage;
import io.basalt.store.DelayLevels;
import io.basalt.store.MessageProperties;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.PutMessageTransform;

/**
 * The send-time step of delay levels, RocketMQ's {@code HookUtils.transformDelayLevelMessage}: a message whose
 * {@code DELAY} property is a level above 0 is stored in {@code SCHEDULE_TOPIC_XXXX}, queue level − 1, with its
 * topic and queue in {@code REAL_TOPIC} / {@code REAL_QID}; a level above the maximum is stored as the maximum.
 * Only plain and committed-transaction messages are delayed (RocketMQ's transaction-type check); a due message
 * the schedule or timer service puts back ({@link BrokerMessage#dueRedelivery()}) passes unchanged, as does a
 * message without "DELAY" anywhere in its properties (no parsing on that path).
 *
 * <p>The stored properties string is RocketMQ's byte for byte: RocketMQ recomputes it with
 * {@code MessageDecoder.messageProperties2String} from the message's property map, a {@code HashMap} of
 * initial capacity 128 filled in the order of the sent string and then given {@code REAL_TOPIC} and
 * {@code REAL_QID}. Its iteration order is deterministic (bucket index of the key's hash, then insertion
 * order), so the same map built the same way here writes the same bytes.
 *
 * <p>Stateless; called on any sender's thread.
 */
public final class DelayLevelTransform implements PutMessageTransform {
    public static final String PROPERTY_REAL_TOPIC = "REAL_TOPIC";
    public static final String PROPERTY_REAL_QUEUE_ID = "REAL_QID";
    /** The initial capacity of RocketMQ's {@code string2messageProperties} map, which fixes the iteration order. */
    private static final int ROCKETMQ_PROPERTY_MAP_CAPACITY = 128;

    private final DelayLevels levels;

    public DelayLevelTransform(DelayLevels levels) {
        this.levels = levels;
    }

    @Override
    public Decision apply(BrokerMessage message) {
        String properties = message.propertiesString();
        if (message.dueRedelivery() || !properties.contains(MessageProperties.DELAY_TIME_LEVEL)) {
            return Decision.append(message);
        }
        int transactionType = TransactionalMessages.transactionType(message.sysFlag());
        if (transactionType != TransactionalMessages.TRANSACTION_NOT_TYPE
            && transactionType != TransactionalMessages.TRANSACTION_COMMIT_TYPE) {
            return Decision.append(message);
        }
        Map<String, String> map = rocketMqPropertyMap(properties);
        String delay = map.get(MessageProperties.DELAY_TIME_LEVEL);
        if (delay == null) {
            return Decision.append(message);
        }
        int level;
        try {
            level = Integer.parseInt(delay);
        } catch (NumberFormatException e) {
            return Decision.refuse(PutMessageStatus.MESSAGE_ILLEGAL, "the delay level (property DELAY) '" + delay
                + "' is not a number; use a level from 1 to " + levels.maxLevel() + ", or 0 for no delay");
        }
        if (level <= 0) {
            return Decision.append(message);
        }
        if (level > levels.maxLevel()) {
            level = levels.maxLevel();
            map.put(MessageProperties.DELAY_TIME_LEVEL, Integer.toString(level));
        }
        map.put(PROPERTY_REAL_TOPIC, message.topic());
        map.put(PROPERTY_REAL_QUEUE_ID, Integer.toString(message.queueId()));
        return Decision.append(message.toBuilder()
            .topic(DelayLevels.SCHEDULE_TOPIC)
            .queueId(DelayLevels.queueId(level))
            .propertiesString(MessageProperties.toPropertiesString(map))
            .build());
    }

    /** The properties as RocketMQ's {@code string2messageProperties} holds them (same map type, same order). */
    public static Map<String, String> rocketMqPropertyMap(String properties) {
        Map<String, String> map = new HashMap<>(ROCKETMQ_PROPERTY_MAP_CAPACITY);
        int len = properties.length();
        int index = 0;
        while (index < len) {
            int end = properties.indexOf(MessageProperties.PROPERTY_SEPARATOR, index);
            if (end < 0) {
                end = len;
            }
            int sep = properties.indexOf(MessageProperties.NAME_VALUE_SEPARATOR, index);
            if (end - index >= 3 && sep > index && sep < end - 1) {
                map.put(properties.substring(index, sep), properties.substring(sep + 1, end));
            }
            index = end + 1;
        }
        return map;
    }
}
