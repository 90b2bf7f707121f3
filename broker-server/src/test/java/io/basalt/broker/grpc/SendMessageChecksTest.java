package io.basalt.broker.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.MessageType;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.SystemProperties;
import com.google.protobuf.ByteString;
import com.google.protobuf.Duration;
import io.basalt.broker.topic.TopicConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SendMessageChecksTest {
    static final long NOW = 1_700_000_000_000L;
    static final TopicConfig NORMAL = TopicConfig.of("T", 4, 6);
    static final TopicConfig FIFO = new TopicConfig("F", 4, 4, 6, "SINGLE_TAG", 0, false, Map.of("message.type", "FIFO"));
    static final TopicConfig MIXED = new TopicConfig("M", 4, 4, 6, "SINGLE_TAG", 0, false, Map.of("message.type", "MIXED"));

    static Message.Builder message(String topic) {
        return Message.newBuilder().setTopic(Resource.newBuilder().setName(topic)).setBody(ByteString.copyFromUtf8("b"))
            .setSystemProperties(SystemProperties.newBuilder().setMessageId("01ABC").setMessageType(MessageType.NORMAL));
    }

    static Code check(Message.Builder m, TopicConfig topic) {
        var status = SendMessageChecks.checkMessage(m.build(), topic, 10, NOW);
        return status == null ? Code.OK : status.getCode();
    }

    @Test
    void theRequestNeedsMessagesOfOneLegalTopic() {
        assertEquals(Code.MESSAGE_CORRUPTED, SendMessageChecks.checkRequest(List.of()).getCode());
        assertEquals(Code.ILLEGAL_TOPIC, SendMessageChecks.checkRequest(List.of(message("bad topic").build())).getCode());
        assertEquals(Code.ILLEGAL_TOPIC, SendMessageChecks.checkRequest(List.of(message("rmq_sys_wheel_timer").build()))
            .getCode());
        assertEquals(Code.MESSAGE_CORRUPTED, SendMessageChecks.checkRequest(List.of(message("T").build(),
            message("U").build())).getCode());
        assertNull(SendMessageChecks.checkRequest(List.of(message("T").build(), message("T").build())));
    }

    @Test
    void eachMessageIsCheckedInRocketMqsOrderWithItsCode() {
        assertEquals(Code.OK, check(message("T"), NORMAL));
        assertEquals(Code.MESSAGE_BODY_TOO_LARGE, check(message("T").setBody(ByteString.copyFrom(new byte[11])), NORMAL));
        assertEquals(Code.OK, check(message("T").setBody(ByteString.copyFrom(new byte[10])), NORMAL));
        assertEquals(Code.ILLEGAL_MESSAGE_PROPERTY_KEY, check(message("T").putUserProperties("TAGS", "x"), NORMAL));
        assertEquals(Code.ILLEGAL_MESSAGE_PROPERTY_KEY, check(message("T").putUserProperties("a\u0001b", "x"), NORMAL));
        Message.Builder many = message("T");
        for (int i = 0; i < 129; i++) {
            many.putUserProperties("k" + i, "v");
        }
        assertEquals(Code.MESSAGE_PROPERTIES_TOO_LARGE, check(many, NORMAL));
        assertEquals(Code.MESSAGE_PROPERTIES_TOO_LARGE, check(message("T").putUserProperties("k", "v".repeat(16 * 1024)),
            NORMAL));
        assertEquals(Code.ILLEGAL_MESSAGE_TAG, check(withSystem(message("T"), s -> s.setTag("a|b")), NORMAL));
        assertEquals(Code.ILLEGAL_MESSAGE_TAG, check(withSystem(message("T"), s -> s.setTag(" ")), NORMAL));
        assertEquals(Code.ILLEGAL_MESSAGE_KEY, check(withSystem(message("T"), s -> s.addKeys(" ")), NORMAL));
        assertEquals(Code.ILLEGAL_MESSAGE_ID, check(withSystem(message("T"), s -> s.setMessageId("")), NORMAL));
        assertEquals(Code.ILLEGAL_MESSAGE_GROUP, check(withSystem(message("F"), s -> s.setMessageType(MessageType.FIFO)
            .setMessageGroup("g".repeat(64))), FIFO));
        assertEquals(Code.OK, check(withSystem(message("F"), s -> s.setMessageType(MessageType.FIFO)
            .setMessageGroup("g".repeat(63))), FIFO));
        assertEquals(Code.ILLEGAL_DELIVERY_TIME, check(withSystem(message("M"), s -> s.setMessageType(MessageType.DELAY)
            .setDeliveryTimestamp(StoredMessageMapping.timestamp(NOW + 24L * 3600 * 1000 + 1))), MIXED));
        assertEquals(Code.BAD_REQUEST, check(withSystem(message("M"), s -> s.setMessageType(MessageType.TRANSACTION)
            .setOrphanedTransactionRecoveryDuration(Duration.newBuilder().setSeconds(3601))), MIXED));
    }

    @Test
    void theTopicsMessageTypeMustTakeTheMessageAndTheRefusalNamesTheFix() {
        var conflict = SendMessageChecks.checkMessage(withSystem(message("T"), s -> s.setMessageType(MessageType.FIFO)
            .setMessageGroup("g")).build(), NORMAL, 10, NOW);
        assertEquals(Code.MESSAGE_PROPERTY_CONFLICT_WITH_TYPE, conflict.getCode());
        assertTrue(conflict.getMessage().contains("the expected type is NORMAL, but actual type is FIFO"));
        assertTrue(conflict.getMessage().contains("updateTopic -t T -a +message.type=FIFO"), conflict.getMessage());
        for (MessageType type : List.of(MessageType.NORMAL, MessageType.FIFO, MessageType.DELAY, MessageType.TRANSACTION)) {
            assertNull(SendMessageChecks.checkMessageType(type, MIXED), type.name());
        }
        assertNull(SendMessageChecks.checkMessageType(MessageType.FIFO, TopicConfig.of("%RETRY%g", 1, 6)));
    }

    static Message.Builder withSystem(Message.Builder m, java.util.function.Consumer<SystemProperties.Builder> change) {
        SystemProperties.Builder s = m.getSystemProperties().toBuilder();
        change.accept(s);
        return m.setSystemProperties(s);
    }
}
