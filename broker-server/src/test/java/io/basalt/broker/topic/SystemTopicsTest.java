package io.basalt.broker.topic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SystemTopicsTest {
    @TempDir
    Path dir;

    private static SystemTopics.Settings settings(boolean clusterTopic, boolean brokerTopic, boolean trace) {
        return new SystemTopics.Settings("DefaultCluster", "broker-a", true, 8, clusterTopic, brokerTopic, trace,
            "RMQ_SYS_TRACE_TOPIC");
    }

    private static void assertTopic(TopicConfigManager m, String topic, int queues, int perm) {
        TopicConfig t = m.get(topic);
        assertEquals(queues, t.readQueueNums(), topic);
        assertEquals(queues, t.writeQueueNums(), topic);
        assertEquals(perm, t.perm(), topic);
    }

    @Test
    void theTopicsRocketMqCreatesAtStartWithItsQueuesAndPermissions() throws IOException {
        TopicConfigManager m = TopicConfigManager.open(dir, settings(true, true, false));
        assertTopic(m, "TBW102", 8, 7);
        assertTopic(m, "DefaultCluster", 16, 7);
        assertTopic(m, "broker-a", 1, 7);
        assertTopic(m, "SELF_TEST_TOPIC", 1, 6);
        assertTopic(m, "OFFSET_MOVED_EVENT", 1, 6);
        assertTopic(m, "DefaultCluster_REPLY_TOPIC", 1, 6);
        assertTopic(m, "RMQ_SYS_TRANS_HALF_TOPIC", 1, 6);
        assertTopic(m, "RMQ_SYS_TRANS_OP_HALF_TOPIC", 1, 6);
        assertNull(m.get("RMQ_SYS_TRACE_TOPIC"), "traceTopicEnable is off");
        for (String notImplemented : new String[] {"SCHEDULE_TOPIC_XXXX", "TRANS_CHECK_MAX_TIME_TOPIC",
            "rmq_sys_REVIVE_LOG_DefaultCluster", "BenchmarkTest"}) {
            assertNull(m.get(notImplemented), notImplemented);
        }
        assertTrue(Files.readString(dir.resolve("topics.json")).contains("\"DefaultCluster_REPLY_TOPIC\""), "persisted");
    }

    @Test
    void theEnableKeysDecideThePermissionsAtEveryStartAndTheTraceTopic() throws IOException {
        TopicConfigManager.open(dir, settings(true, true, false));
        TopicConfigManager m = TopicConfigManager.open(dir, settings(false, false, true));
        assertTopic(m, "DefaultCluster", 16, Perm.INHERIT);
        assertTopic(m, "broker-a", 1, Perm.INHERIT);
        assertTopic(m, "RMQ_SYS_TRACE_TOPIC", 1, 6);
        TopicConfigManager custom = TopicConfigManager.open(dir.resolve("custom"), new SystemTopics.Settings("c1", "b1",
            false, 8, true, true, true, "MyTraces"));
        assertTopic(custom, "MyTraces", 1, 6);
        assertNull(custom.get("TBW102"));
        assertTrue(custom.systemTopics().isSystemTopic("MyTraces"));
    }

    @Test
    void reservedNamesAreRocketMqsSystemTopics() {
        SystemTopics system = SystemTopics.of(settings(true, true, false));
        for (String topic : new String[] {"TBW102", "SCHEDULE_TOPIC_XXXX", "RMQ_SYS_TRACE_TOPIC",
            "SELF_TEST_TOPIC", "OFFSET_MOVED_EVENT", "CHECKPOINT_TOPIC", "DefaultCluster", "broker-a",
            "DefaultCluster_REPLY_TOPIC", "rmq_sys_anything"}) {
            assertTrue(system.isSystemTopic(topic), topic);
        }
        assertFalse(system.isSystemTopic("TopicA"));
        assertFalse(system.isSystemTopic("BenchmarkTest"), "not created here, so an ordinary topic");
        assertTrue(TopicValidator.isNotAllowedSendTopic("SELF_TEST_TOPIC"));
        assertTrue(TopicValidator.isNotAllowedSendTopic("OFFSET_MOVED_EVENT"));
        assertFalse(TopicValidator.isNotAllowedSendTopic("DefaultCluster_REPLY_TOPIC"));
    }

    @Test
    void aRocketMqStoreWithACompactedTopicDoesNotOpen() throws IOException {
        Files.writeString(dir.resolve("topics.json"), "{\"dataVersion\":{\"counter\":3,\"stateVersion\":0,"
            + "\"timestamp\":1700000000000},\"topicConfigTable\":{\"Prices\":{\"attributes\":{\"cleanup.policy\":"
            + "\"COMPACTION\"},\"perm\":6,\"readQueueNums\":4,\"topicName\":\"Prices\",\"writeQueueNums\":4},"
            + "\"Plain\":{\"attributes\":{\"message.type\":\"NORMAL\"},\"perm\":6,\"readQueueNums\":4,"
            + "\"topicName\":\"Plain\",\"writeQueueNums\":4}}}");
        IOException e = assertThrows(TopicConfigManager.UnsupportedTopicException.class,
            () -> TopicConfigManager.open(dir, settings(true, true, false)));
        assertTrue(e.getMessage().contains("topic[Prices] cleanup.policy=COMPACTION is not supported"), e.getMessage());
        assertFalse(e.getMessage().contains("Plain"), e.getMessage());
    }
}
