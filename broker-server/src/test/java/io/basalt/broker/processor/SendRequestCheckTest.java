package io.basalt.broker.processor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.broker.topic.TopicCreationLimiter;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.remoting.protocol.SendMessageRequestHeader;

class SendRequestCheckTest {
    @TempDir
    Path dir;

    private static SendMessageRequestHeader send(String topic) {
        SendMessageRequestHeader h = new SendMessageRequestHeader();
        h.setTopic(topic);
        h.setDefaultTopic("TBW102");
        h.setDefaultTopicQueueNums(4);
        h.setQueueId(0);
        return h;
    }

    @Test
    void autoCreationBeyondTheClientsRateIsRefusedAsTopicNotExistNamingTheLimit() throws IOException {
        TopicConfigManager topics = TopicConfigManager.open(dir, true, 8);
        AtomicLong nanos = new AtomicLong();
        topics.limitSendPathCreations(new TopicCreationLimiter(2, nanos::get));
        SendRequestCheck check = new SendRequestCheck(
            new StoreHost("DefaultCluster", "broker-a", new InetSocketAddress("127.0.0.1", 10911)), () -> true, 1024, topics);
        InetSocketAddress flooder = new InetSocketAddress("10.0.0.9", 5000);
        byte[] body = {1};
        assertInstanceOf(SendRequestCheck.Accepted.class, check.check(send("New1"), body, flooder, false));
        assertInstanceOf(SendRequestCheck.Accepted.class, check.check(send("New2"), body, flooder, false));
        SendRequestCheck.Refused refused = assertInstanceOf(SendRequestCheck.Refused.class,
            check.check(send("New3"), body, flooder, false));
        assertEquals(ResponseCode.TOPIC_NOT_EXIST, refused.code());
        assertTrue(refused.remark().contains("autoCreateTopicPerClientPerSecond=2"), refused.remark());
        assertNull(topics.get("New3"), "not created");
        assertInstanceOf(SendRequestCheck.Accepted.class, check.check(send("New1"), body, flooder, false),
            "sends to a topic that exists are never limited");
        assertInstanceOf(SendRequestCheck.Accepted.class,
            check.check(send("New3"), body, new InetSocketAddress("10.0.0.10", 5000), false), "another host may");
        assertNotNull(topics.get("New3"));
    }

    private SendRequestCheck check() throws IOException {
        TopicConfigManager topics = TopicConfigManager.open(dir, true, 8);
        return new SendRequestCheck(new StoreHost("DefaultCluster", "broker-a", new InetSocketAddress("127.0.0.1", 10911)),
            () -> true, 1024, topics);
    }

    private static final InetSocketAddress PRODUCER = new InetSocketAddress("10.0.0.9", 5000);

    @Test
    void sendsToTheTimerTopicAndEveryRmqSysTopicAreRefusedNamingTheTopic() throws IOException {
        SendRequestCheck check = check();
        for (String topic : new String[] {"rmq_sys_wheel_timer", "rmq_sys_REVIVE_LOG_DefaultCluster",
            "rmq_sys_SYNC_BROKER_MEMBER_broker-a", "SCHEDULE_TOPIC_XXXX", "RMQ_SYS_TRANS_HALF_TOPIC"}) {
            SendRequestCheck.Refused refused = assertInstanceOf(SendRequestCheck.Refused.class,
                check.check(send(topic), new byte[] {1}, PRODUCER, false), topic);
            assertEquals(ResponseCode.NO_PERMISSION, refused.code(), topic);
            assertEquals("Sending message to topic[" + topic + "] is forbidden.", refused.remark());
        }
        assertInstanceOf(SendRequestCheck.Accepted.class, check.check(send("RMQ_SYS_TRACE_TOPIC"), new byte[] {1}, PRODUCER,
            false), "clients write their traces there");
    }

    private static SendMessageRequestHeader half(String properties) {
        SendMessageRequestHeader h = send("Orders");
        h.setSysFlag(io.basalt.broker.transaction.TransactionalMessages.TRANSACTION_PREPARED_TYPE);
        h.setProperties(properties);
        return h;
    }

    @Test
    void aHalfMessageWithATimerOrDelayPropertyIsRefusedNamingTheProperty() throws IOException {
        SendRequestCheck check = check();
        for (String property : new String[] {"TIMER_DELIVER_MS\u00011700000005000", "TIMER_DELAY_SEC\u000110",
            "TIMER_DELAY_MS\u00013000", "TIMER_DEL_UNIQKEY\u0001AC11000100002A9F0000000000000000", "DELAY\u00013"}) {
            String properties = "TRAN_MSG\u0001true\u0002PGROUP\u0001pg\u0002" + property + "\u0002";
            SendRequestCheck.Refused refused = assertInstanceOf(SendRequestCheck.Refused.class,
                check.check(half(properties), new byte[] {1}, PRODUCER, false), property);
            assertEquals(ResponseCode.MESSAGE_ILLEGAL, refused.code());
            assertTrue(refused.remark().contains(property.replace('\u0001', '=')), refused.remark());
        }
    }

    @Test
    void aHalfMessageWithoutDelayAndADelayedPlainMessagePass() throws IOException {
        SendRequestCheck check = check();
        assertInstanceOf(SendRequestCheck.Accepted.class, check.check(half("TRAN_MSG\u0001true\u0002DELAY\u00010\u0002"),
            new byte[] {1}, PRODUCER, false), "DELAY=0 is no delay");
        SendMessageRequestHeader plain = send("Orders");
        plain.setProperties("TIMER_DELAY_SEC\u000110\u0002");
        assertInstanceOf(SendRequestCheck.Accepted.class, check.check(plain, new byte[] {1}, PRODUCER, false));
        SendMessageRequestHeader committed = half("TIMER_DELAY_SEC\u000110\u0002");
        committed.setSysFlag(0x8);
        assertInstanceOf(SendRequestCheck.Accepted.class, check.check(committed, new byte[] {1}, PRODUCER, false),
            "only PREPARED is a half message");
    }

    @Test
    void anOldClientsRetryWithTranMsgAndADelayIsNotAHalfMessage() throws IOException {
        SendMessageRequestHeader retry = half("TRAN_MSG\u0001true\u0002DELAY\u00014\u0002");
        retry.setReconsumeTimes(1);
        SendMessageRequestHeader first = half("TRAN_MSG\u0001true\u0002");

        assertInstanceOf(SendRequestCheck.Accepted.class, check().check(retry, new byte[] {1}, PRODUCER, false),
            "RocketMQ's exception: reconsumeTimes > 0 and DELAY > 0");
        assertFalse(SendRequestCheck.isHalfMessage(retry));
        assertTrue(SendRequestCheck.isHalfMessage(first));
        assertFalse(SendRequestCheck.isHalfMessage(send("Orders")));
    }

    @Test
    void withoutBrokerWriteOnlyOrderTopicsAreRefused() throws IOException {
        TopicConfigManager topics = TopicConfigManager.open(dir, true, 8);
        topics.createOrUpdate(new io.basalt.broker.topic.TopicConfig("OrderTopic", 4, 4, 6, "SINGLE_TAG", 0, true,
            java.util.Map.of()));
        topics.createOrUpdate(new io.basalt.broker.topic.TopicConfig("PlainTopic", 4, 4, 6, "SINGLE_TAG", 0, false,
            java.util.Map.of()));
        SendRequestCheck check = new SendRequestCheck(
            new StoreHost("DefaultCluster", "broker-a", new InetSocketAddress("127.0.0.1", 10911)), () -> true, 1024, topics);
        assertInstanceOf(SendRequestCheck.Accepted.class, check.check(send("OrderTopic"), new byte[] {1}, PRODUCER, false));

        topics.brokerPermission().configure(4, "127.0.0.1");

        SendRequestCheck.Refused refused = assertInstanceOf(SendRequestCheck.Refused.class,
            check.check(send("OrderTopic"), new byte[] {1}, PRODUCER, false));
        assertEquals(ResponseCode.NO_PERMISSION, refused.code());
        assertTrue(refused.remark().startsWith("the broker[127.0.0.1] sending message is forbidden"), refused.remark());
        assertInstanceOf(SendRequestCheck.Accepted.class, check.check(send("PlainTopic"), new byte[] {1}, PRODUCER, false),
            "RocketMQ's rule: routes steer other sends away, the broker still takes them");
    }
}
