package io.basalt.broker.schedule;

import java.util.Map;

import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.StoredMessage;

/**
 * RocketMQ's {@code ScheduleMessageService.messageTimeUp}: the message a due SCHEDULE_TOPIC_XXXX record becomes
 * in its real topic. Body, flag, sysFlag, born host and time, store host and reconsume times are the record's; the
 * topic and queue come from {@code REAL_TOPIC} / {@code REAL_QID}; the tagsCode is the TAGS hash again. The
 * properties string is computed as RocketMQ computes it, {@code messageProperties2String} of the decoded map,
 * <em>before</em> DELAY and the timer keys are removed from that map: the delivered record still carries
 * {@code DELAY}, {@code REAL_TOPIC} and {@code REAL_QID} (for a record the delay transform wrote, the string is
 * the stored one unchanged). The message is marked {@link BrokerMessage#dueRedelivery() due}, so that the delay
 * and timer transforms pass it on. Stateless.
 */
final class DueMessage {

    private DueMessage() {
    }

    /**
     * The real-topic message of {@code scheduled}, or null when the record names no real topic or queue (not a
     * delayed message: nothing to deliver).
     */
    static BrokerMessage of(StoredMessage scheduled) {
        Map<String, String> properties = DelayLevelTransform.rocketMqPropertyMap(scheduled.properties());
        String realTopic = properties.get(DelayLevelTransform.PROPERTY_REAL_TOPIC);
        String realQueueId = properties.get(DelayLevelTransform.PROPERTY_REAL_QUEUE_ID);
        if (realTopic == null || realQueueId == null) {
            return null;
        }
        int queueId;
        try {
            queueId = Integer.parseInt(realQueueId);
        } catch (NumberFormatException e) {
            return null;
        }
        return BrokerMessage.builder()
            .topic(realTopic)
            .queueId(queueId)
            .body(scheduled.body())
            .flag(scheduled.flag())
            .propertiesString(MessageProperties.toPropertiesString(properties))
            .sysFlag(scheduled.sysFlag())
            .bornTimestamp(scheduled.bornTimestamp())
            .bornHost(scheduled.bornHost())
            .storeHost(scheduled.storeHost())
            .reconsumeTimes(scheduled.reconsumeTimes())
            .dueRedelivery(true)
            .build();
    }
}
