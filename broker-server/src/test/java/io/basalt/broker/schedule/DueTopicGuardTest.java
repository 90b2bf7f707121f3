package io.basalt.broker.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.store.BrokerMessage;

class DueTopicGuardTest {
    @TempDir
    Path dir;

    @Test
    void aDueMessageForAnUnknownTopicCreatesItWithQueuesForItsQueueId() throws Exception {
        TopicConfigManager topics = TopicConfigManager.open(dir, true, 4);
        DueTopicGuard guard = new DueTopicGuard(topics, 4);
        BrokerMessage due = BrokerMessage.builder().topic("LostTopic").queueId(6).body(new byte[] {1})
            .dueRedelivery(true).build();

        assertSame(due, guard.apply(due).message());

        TopicConfig created = topics.get("LostTopic");
        assertEquals(7, created.readQueueNums());
        assertEquals(7, created.writeQueueNums());
    }

    @Test
    void aSendIsPassedOnWithoutCreatingAnything() throws Exception {
        TopicConfigManager topics = TopicConfigManager.open(dir, true, 4);
        DueTopicGuard guard = new DueTopicGuard(topics, 4);
        BrokerMessage send = BrokerMessage.builder().topic("Unknown").queueId(0).body(new byte[] {1}).build();

        assertSame(send, guard.apply(send).message());
        assertNull(topics.get("Unknown"));
    }
}
