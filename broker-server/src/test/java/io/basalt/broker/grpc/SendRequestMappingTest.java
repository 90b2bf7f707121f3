package io.basalt.broker.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import apache.rocketmq.v2.Encoding;
import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.MessageType;
import com.google.protobuf.Duration;
import io.basalt.remoting.protocol.SendMessageRequestHeader;
import io.basalt.store.MessageProperties;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SendRequestMappingTest {
    @Test
    void aFifoMessageBecomesASendOfItsTopicWithRocketMqsPropertyNames() {
        Message m = SendMessageChecksTest.withSystem(SendMessageChecksTest.message("F").putUserProperties("color", "red"),
            s -> s.setMessageType(MessageType.FIFO).setMessageGroup("order-1").setTag("TagA").addKeys("k1").addKeys("k2")
                .setTraceContext("trace").setBornTimestamp(StoredMessageMapping.timestamp(1234))).build();
        SendMessageRequestHeader h = SendRequestMapping.toHeader(m, 3, "10.0.0.9:5555", 99);
        assertEquals("F", h.getProducerGroup(), "producer group = topic");
        assertEquals("F", h.getTopic());
        assertEquals("TBW102", h.getDefaultTopic());
        assertEquals(4, h.getDefaultTopicQueueNums());
        assertEquals(3, h.getQueueId());
        assertEquals(0, h.getSysFlag());
        assertEquals(0, h.getFlag());
        assertEquals(0, h.getReconsumeTimes());
        assertEquals(1234L, h.getBornTimestamp());
        Map<String, String> p = MessageProperties.parse(h.getProperties());
        assertEquals("red", p.get("color"));
        assertEquals("TagA", p.get("TAGS"));
        assertEquals("k1 k2", p.get("KEYS"));
        assertEquals("01ABC", p.get("UNIQ_KEY"));
        assertEquals("order-1", p.get("__SHARDINGKEY"));
        assertEquals("trace", p.get("TRACE_CONTEXT"));
        assertEquals("10.0.0.9:5555", p.get("__BORNHOST"));
        assertEquals("F", p.get("PGROUP"));
        assertFalse(p.containsKey("TRAN_MSG"));
    }

    @Test
    void transactionalDelayedAndCompressedMessagesSetTheirFlagsAndProperties() {
        Message tx = SendMessageChecksTest.withSystem(SendMessageChecksTest.message("T"), s -> s
            .setMessageType(MessageType.TRANSACTION).setBodyEncoding(Encoding.GZIP)
            .setOrphanedTransactionRecoveryDuration(Duration.newBuilder().setSeconds(30))).build();
        SendMessageRequestHeader h = SendRequestMapping.toHeader(tx, 0, "h:1", 5);
        assertEquals(0x4 | 0x1, h.getSysFlag(), "prepared + compressed");
        Map<String, String> p = MessageProperties.parse(h.getProperties());
        assertEquals("true", p.get("TRAN_MSG"));
        assertEquals("30", p.get("CHECK_IMMUNITY_TIME_IN_SECONDS"));
        assertEquals(5L, h.getBornTimestamp(), "no born time: the server's");

        Message delayed = SendMessageChecksTest.withSystem(SendMessageChecksTest.message("D"), s -> s
            .setMessageType(MessageType.DELAY).setDeliveryTimestamp(StoredMessageMapping.timestamp(777_000))).build();
        Map<String, String> d = MessageProperties.parse(SendRequestMapping.toHeader(delayed, 0, "h:1", 5)
            .getProperties());
        assertEquals("777000", d.get("TIMER_DELIVER_MS"));
    }

    @Test
    void aMessageGroupIsPinnedToOneQueueAndOthersGoRoundRobin() {
        QueueChoice choice = new QueueChoice();
        int q = choice.choose("order-1", 8);
        for (int i = 0; i < 20; i++) {
            assertEquals(q, choice.choose("order-1", 8));
        }
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (int i = 0; i < 8; i++) {
            seen.add(choice.choose(null, 8));
        }
        assertEquals(8, seen.size());
    }
}
