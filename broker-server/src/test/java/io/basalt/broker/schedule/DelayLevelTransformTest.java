package io.basalt.broker.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.Map;

import org.apache.rocketmq.common.message.MessageDecoder;
import org.junit.jupiter.api.Test;

import io.basalt.store.BrokerMessage;
import io.basalt.store.DelayLevels;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.PutMessageTransform.Decision;

/**
 * The send-time delay transform against RocketMQ's own property codec: the SCHEDULE record's properties string is
 * what {@code transformDelayLevelMessage} makes of the map {@code string2messageProperties} builds.
 */
class DelayLevelTransformTest {
    private final DelayLevelTransform transform = new DelayLevelTransform(DelayLevels.parse("1s 2s 3s"));

    private static BrokerMessage message(String properties, int sysFlag) {
        return BrokerMessage.builder().topic("TopicA").queueId(3).body("b".getBytes()).propertiesString(properties)
            .sysFlag(sysFlag).bornTimestamp(1).bornHost(new InetSocketAddress("127.0.0.1", 4000))
            .storeHost(new InetSocketAddress("127.0.0.1", 10911)).build();
    }

    /** RocketMQ 5.2.0's computation: string2messageProperties, put REAL_TOPIC / REAL_QID, messageProperties2String. */
    private static String rocketMq(String sent, String topic, int queueId, Integer clampedLevel) {
        Map<String, String> map = MessageDecoder.string2messageProperties(sent);
        if (clampedLevel != null) {
            map.put("DELAY", clampedLevel.toString());
        }
        map.put("REAL_TOPIC", topic);
        map.put("REAL_QID", Integer.toString(queueId));
        return MessageDecoder.messageProperties2String(map);
    }

    @Test
    void aDelayedMessageGoesToItsLevelsQueueWithRocketMqsPropertiesBytes() {
        String sent = "KEYS\u0001order-1 order-2\u0002TAGS\u0001tagA\u0002DELAY\u00012\u0002WAIT\u0001true\u0002"
            + "UNIQ_KEY\u00017F0000010F2A18B4AAC2123456780000\u0002CLUSTER\u0001DefaultCluster\u0002";
        BrokerMessage original = message(sent, 0);
        Decision d = transform.apply(original);

        BrokerMessage stored = d.message();
        assertEquals(DelayLevels.SCHEDULE_TOPIC, stored.topic());
        assertEquals(1, stored.queueId(), "level 2 waits in queue 1");
        assertEquals(rocketMq(sent, "TopicA", 3, null), stored.propertiesString());
        assertTrue(stored.propertiesString().contains("REAL_TOPIC\u0001TopicA\u0002"));
        assertEquals(original.body(), stored.body());
        assertEquals(original.bornTimestamp(), stored.bornTimestamp());
        assertEquals("tagA".hashCode(), stored.tagsCode(), "the dispatcher, not the transform, writes the deliver time");
    }

    @Test
    void aLevelAboveTheMaximumIsStoredAsTheMaximum() {
        String sent = "DELAY\u000117\u0002TAGS\u0001x\u0002";
        BrokerMessage stored = transform.apply(message(sent, 0)).message();
        assertEquals(2, stored.queueId());
        assertEquals(rocketMq(sent, "TopicA", 3, 3), stored.propertiesString());
    }

    @Test
    void plainDueHalfAndZeroLevelMessagesPassUnchanged() {
        BrokerMessage plain = message("TAGS\u0001DELAYED\u0002", 0);
        assertSame(plain, transform.apply(plain).message(), "DELAY in a value only: no level");
        BrokerMessage noDelay = message("TAGS\u0001a\u0002", 0);
        assertSame(noDelay, transform.apply(noDelay).message());
        BrokerMessage zero = message("DELAY\u00010\u0002", 0);
        assertSame(zero, transform.apply(zero).message());
        BrokerMessage due = message("DELAY\u00012\u0002REAL_TOPIC\u0001TopicA\u0002", 0).toBuilder().dueRedelivery(true).build();
        assertSame(due, transform.apply(due).message(), "a due message put back is not delayed again");
        BrokerMessage prepared = message("DELAY\u00012\u0002", 0x4);
        assertSame(prepared, transform.apply(prepared).message(), "a half message is never delayed");
        BrokerMessage committed = message("DELAY\u00012\u0002", 0x8);
        assertEquals(DelayLevels.SCHEDULE_TOPIC, transform.apply(committed).message().topic(), "a commit is");
    }

    @Test
    void aDelayThatIsNotANumberIsRefusedAsIllegal() {
        Decision d = transform.apply(message("DELAY\u0001soon\u0002", 0));
        assertTrue(d.refused());
        assertEquals(PutMessageStatus.MESSAGE_ILLEGAL, d.refusal());
        assertTrue(d.reason().contains("'soon'") && d.reason().contains("1 to 3"), d.reason());
    }
}
