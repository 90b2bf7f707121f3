package io.basalt.broker.topic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TopicAttributesTest {

    private static String refusal(boolean create, Map<String, String> current, String modification) {
        return assertThrows(IllegalArgumentException.class, () -> TopicAttributes.alter(create, current, modification))
            .getMessage();
    }

    @Test
    void addsReplacesAndRemovesAsRocketMqsAttributeParser() {
        assertEquals(Map.of("message.type", "FIFO", "cleanup.policy", "DELETE", "queue.type", "SimpleCQ"),
            TopicAttributes.alter(true, Map.of(), "+message.type=FIFO,+cleanup.policy=DELETE,+queue.type=SimpleCQ"));
        Map<String, String> current = Map.of("message.type", "NORMAL", "queue.type", "SimpleCQ");
        assertEquals(Map.of("message.type", "FIFO", "queue.type", "SimpleCQ"),
            TopicAttributes.alter(false, current, "+message.type=FIFO"));
        assertEquals(Map.of("queue.type", "SimpleCQ"), TopicAttributes.alter(false, current, "-message.type"));
        assertEquals(current, TopicAttributes.alter(false, current, null));
        assertEquals(current, TopicAttributes.alter(false, current, " "));
    }

    @Test
    void malformedChangesNameTheItem() {
        assertTrue(refusal(true, Map.of(), "message.type=FIFO").contains("message.type=FIFO"));
        assertTrue(refusal(true, Map.of(), "+key").contains("delete attribute format is wrong: +key"));
        assertTrue(refusal(true, Map.of(), "+=v").contains("kv string format wrong"));
        assertTrue(refusal(true, Map.of(), "+message.type=").contains("add/alter attribute format is wrong"));
        assertTrue(refusal(true, Map.of(), "+message.type=FIFO,+message.type=NORMAL").contains("alter duplication key"));
    }

    @Test
    void unknownKeysAndValuesAreRefusedWithRocketMqsText() {
        String key = refusal(true, Map.of(), "+retention.hours=5");
        assertTrue(key.startsWith("unsupported key: retention.hours"), key);
        String value = refusal(true, Map.of(), "+message.type=normal");
        assertTrue(value.startsWith("value is not in set: [UNSPECIFIED, NORMAL, FIFO, DELAY, TRANSACTION, MIXED]"), value);
        assertTrue(refusal(false, Map.of(), "-message.type").startsWith("attempt to delete a nonexistent key: message.type"));
        assertTrue(refusal(true, Map.of(), "-message.type")
            .startsWith("only add attribute is supported while creating topic. key: message.type"));
    }

    @Test
    void queueTypeAndCleanupPolicyAreFixedAtCreation() {
        assertTrue(refusal(false, Map.of(), "+cleanup.policy=DELETE")
            .startsWith("attempt to update an unchangeable attribute. key: cleanup.policy"));
        assertTrue(refusal(false, Map.of("queue.type", "SimpleCQ"), "-queue.type")
            .startsWith("attempt to update an unchangeable attribute. key: queue.type"));
    }

    @Test
    void compactionAndBatchQueuesAreRefusedNamingThem() {
        String compaction = refusal(true, Map.of(), "+cleanup.policy=COMPACTION");
        assertTrue(compaction.startsWith("cleanup.policy=COMPACTION is not supported: Basalt has no compaction"), compaction);
        String batch = refusal(true, Map.of(), "+queue.type=BatchCQ");
        assertTrue(batch.startsWith("queue.type=BatchCQ is not supported: Basalt has no batch consume queues"), batch);
    }

    @Test
    void storedAttributesAreCheckedByTheSameTable() {
        assertEquals(Optional.empty(), TopicAttributes.unsupported(Map.of("message.type", "MIXED", "cleanup.policy", "DELETE")));
        assertTrue(TopicAttributes.unsupported(Map.of("cleanup.policy", "COMPACTION")).orElseThrow()
            .contains("Basalt has no compaction"));
        assertTrue(TopicAttributes.unsupported(Map.of("queue.type", "RocksDBCQ")).orElseThrow()
            .startsWith("value is not in set"));
        assertTrue(TopicAttributes.unsupported(Map.of("future.key", "x")).orElseThrow().startsWith("unsupported key"));
    }
}
