package io.basalt.broker.topic;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QueuesOnDiskCheckTest {
    @TempDir
    Path dir;

    @Test
    void aReadQueueCountBelowTheQueuesOnDiskIsRaisedAndPersistedWriteQueuesStay() throws Exception {
        TopicConfigManager m = TopicConfigManager.open(dir, false, 4);
        m.createOrUpdate(new TopicConfig("Shrunk", 2, 2, 6, "SINGLE_TAG", 0, false, Map.of()));
        m.createOrUpdate(new TopicConfig("Fine", 8, 8, 6, "SINGLE_TAG", 0, false, Map.of()));
        m.persist();

        List<String> raised = QueuesOnDiskCheck.apply(m, Map.of("Shrunk", 8, "Fine", 5, "Gone", 3));

        assertEquals(List.of("Shrunk"), raised);
        assertEquals(8, m.get("Shrunk").readQueueNums());
        assertEquals(2, m.get("Shrunk").writeQueueNums());
        assertEquals(8, m.get("Fine").readQueueNums(), "a larger count is the operator's choice: left alone");
        assertEquals(null, m.get("Gone"), "a topic missing from topics.json is reported, not invented");
        m.persist();
        TopicConfigManager reopened = TopicConfigManager.open(dir, false, 4);
        assertEquals(8, reopened.get("Shrunk").readQueueNums());
    }
}
