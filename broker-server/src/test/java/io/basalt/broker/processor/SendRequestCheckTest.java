package io.basalt.broker.processor;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
