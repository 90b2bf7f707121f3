package io.basalt.broker.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.DigestType;
import apache.rocketmq.v2.Encoding;
import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.MessageType;
import apache.rocketmq.v2.ReceiveMessageRequest;
import com.google.protobuf.Duration;
import io.basalt.broker.pop.PopHandle;
import io.basalt.broker.pop.PopOutcome;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.StoredMessage;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ReceiveRulesTest {
    private static Duration seconds(long s) {
        return Duration.newBuilder().setSeconds(s).build();
    }

    private static StoredMessage stored(String properties, int sysFlag, int reconsumeTimes) {
        return new StoredMessage(0, 0, 0, 2, 0, 7, 4096, sysFlag, 1_000L, new InetSocketAddress("127.0.0.1", 1234),
            2_000L, new InetSocketAddress("127.0.0.1", 10911), reconsumeTimes, 0, "hello".getBytes(StandardCharsets.UTF_8),
            "%RETRY%g_T", properties);
    }

    @Test
    void pollingTimeIsClampedAndCutToTheDeadline() {
        assertEquals(20_000, ReceiveRules.pollingTime(ReceiveMessageRequest.newBuilder()
            .setLongPollingTimeout(seconds(30)).build(), -1));
        assertEquals(5_000, ReceiveRules.pollingTime(ReceiveMessageRequest.newBuilder()
            .setLongPollingTimeout(seconds(1)).build(), 60_000));
        assertEquals(9_500, ReceiveRules.pollingTime(ReceiveMessageRequest.newBuilder()
            .setLongPollingTimeout(seconds(15)).build(), 10_000));
        assertEquals(-1, ReceiveRules.pollingTime(ReceiveMessageRequest.newBuilder()
            .setLongPollingTimeout(seconds(15)).build(), 4_000), "less than 5 s left: ILLEGAL_POLLING_TIME");
    }

    @Test
    void invisibleTimeMustBeBetweenTenSecondsAndTwelveHours() {
        assertEquals(-1, ReceiveRules.invisibleTime(ReceiveMessageRequest.getDefaultInstance()));
        assertEquals(-1, ReceiveRules.invisibleTime(ReceiveMessageRequest.newBuilder().setInvisibleDuration(seconds(9)).build()));
        assertEquals(30_000, ReceiveRules.invisibleTime(ReceiveMessageRequest.newBuilder()
            .setInvisibleDuration(seconds(30)).build()));
        assertEquals(-1, ReceiveRules.invisibleTime(ReceiveMessageRequest.newBuilder()
            .setInvisibleDuration(seconds(13 * 3600)).build()));
    }

    @Test
    void popOutcomesBecomeReceiveStatuses() {
        assertEquals(Code.OK, ReceiveRules.statusOf(PopOutcome.OK).getCode());
        assertEquals(Code.MESSAGE_NOT_FOUND, ReceiveRules.statusOf(new PopOutcome(ResponseCode.POLLING_TIMEOUT, "x")).getCode());
        assertEquals(Code.TOO_MANY_REQUESTS, ReceiveRules.statusOf(new PopOutcome(ResponseCode.POLLING_FULL, "x")).getCode());
        assertEquals(Code.CONSUMER_GROUP_NOT_FOUND,
            ReceiveRules.statusOf(new PopOutcome(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, "x")).getCode());
        assertEquals(Code.INTERNAL_SERVER_ERROR, ReceiveRules.statusOf(new PopOutcome(ResponseCode.SYSTEM_ERROR, "x")).getCode());
    }

    @Test
    void tagsMatchTheSubscriptionsTagSet() {
        assertTrue(ReceiveRules.tagMatches("*", null));
        assertTrue(ReceiveRules.tagMatches(null, "A"));
        assertTrue(ReceiveRules.tagMatches("A || B", "B"));
        assertFalse(ReceiveRules.tagMatches("A || B", "C"));
        assertFalse(ReceiveRules.tagMatches("A", null));
    }

    @Test
    void storedMessageMapsToTheClientsMessageWithTheNineFieldReceiptHandle() {
        String props = "UNIQ_KEY\u0001ID1\u0002TAGS\u0001T\u0002KEYS\u0001k1 k2\u0002color\u0001red\u0002"
            + "POP_CK\u00010 1 2 3 4 b 0 7\u0002";
        PopHandle handle = new PopHandle(5, 100, 60_000, 0, PopHandle.RETRY_V1, "broker-a", 0, 7, 4096);
        Message m = ReceiveRules.toMessage(stored(props, 0x1, 2), "T", handle);
        assertEquals("T", m.getTopic().getName());
        assertEquals("ID1", m.getSystemProperties().getMessageId());
        assertEquals("5 100 60000 0 1 broker-a 0 7 4096", m.getSystemProperties().getReceiptHandle());
        assertEquals(3, m.getSystemProperties().getDeliveryAttempt());
        assertEquals(Encoding.GZIP, m.getSystemProperties().getBodyEncoding());
        assertEquals(DigestType.MD5, m.getSystemProperties().getBodyDigest().getType());
        assertEquals("5D41402ABC4B2A76B9719D911017C592", m.getSystemProperties().getBodyDigest().getChecksum());
        assertEquals(MessageType.NORMAL, m.getSystemProperties().getMessageType());
        assertEquals("T", m.getSystemProperties().getTag());
        assertEquals(java.util.List.of("k1", "k2"), m.getSystemProperties().getKeysList());
        assertEquals(java.util.Map.of("color", "red"), m.getUserPropertiesMap(), "POP_CK and the system names stay out");
        assertEquals(7, m.getSystemProperties().getQueueOffset());
    }
}
