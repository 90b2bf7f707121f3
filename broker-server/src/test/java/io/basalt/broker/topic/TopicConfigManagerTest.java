package io.basalt.broker.topic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.broker.JsonConfigFile;
import io.basalt.broker.protocol.DataVersion;

class TopicConfigManagerTest {
    @TempDir
    Path dir;

    @Test
    void autoCreationInheritsFromTbw102WithTheSmallerQueueCount() throws IOException {
        TopicConfigManager m = TopicConfigManager.open(dir, true, 8);
        TopicConfig tbw = m.get("TBW102");
        assertEquals(Perm.READ | Perm.WRITE | Perm.INHERIT, tbw.perm());
        TopicConfig created = m.createTopicInSendMessageMethod("T", "TBW102", "peer", 4, 0).orElseThrow();
        assertEquals(4, created.writeQueueNums());
        assertEquals(Perm.READ | Perm.WRITE, created.perm());
        TopicConfig bigger = m.createTopicInSendMessageMethod("U", "TBW102", "peer", 64, 0).orElseThrow();
        assertEquals(8, bigger.readQueueNums());
    }

    @Test
    void noAutoCreationWhenDisabled() throws IOException {
        TopicConfigManager m = TopicConfigManager.open(dir, false, 8);
        assertNull(m.get("TBW102"));
        assertTrue(m.createTopicInSendMessageMethod("T", "TBW102", "peer", 4, 0).isEmpty());
    }

    @Test
    void topicsPersistInRocketMqsLayoutAndReload() throws IOException {
        TopicConfigManager m = TopicConfigManager.open(dir, true, 8);
        m.createOrUpdate(TopicConfig.of("Orders", 16, Perm.READ | Perm.WRITE));
        String json = Files.readString(dir.resolve("topics.json"));
        assertTrue(json.contains("\"topicConfigTable\"") && json.contains("\"dataVersion\""), json);
        TopicConfigManager reopened = TopicConfigManager.open(dir, true, 8);
        assertEquals(16, reopened.get("Orders").writeQueueNums());
        assertNotNull(reopened.get("TBW102"));
    }

    @Test
    void readsATopicsJsonWrittenByRocketMq() throws IOException {
        Files.writeString(dir.resolve("topics.json"), "{\n\t\"dataVersion\":{\"counter\":3,\"stateVersion\":0,"
            + "\"timestamp\":1700000000000},\n\t\"topicConfigTable\":{\n\t\t\"TopicTest\":{\"attributes\":{},\"order\":false,"
            + "\"perm\":6,\"readQueueNums\":4,\"topicFilterType\":\"SINGLE_TAG\",\"topicName\":\"TopicTest\","
            + "\"topicSysFlag\":0,\"writeQueueNums\":4}\n\t}\n}");
        TopicConfigManager m = TopicConfigManager.open(dir, true, 8);
        assertEquals(4, m.get("TopicTest").readQueueNums());
        assertEquals(3 + 1, m.dataVersion().counter(), "adding TBW102 is a change");
    }

    @Test
    void theDataVersionSurvivesAReopenAndEveryChangeBumpsItOnce() throws IOException {
        Files.writeString(dir.resolve("topics.json"), "{\"dataVersion\":{\"counter\":7,\"stateVersion\":2,"
            + "\"timestamp\":1700000000000},\"topicConfigTable\":{\"TBW102\":{\"perm\":7,\"readQueueNums\":8,"
            + "\"topicName\":\"TBW102\",\"writeQueueNums\":8}}}");
        long[] now = {1_800_000_000_000L};
        TopicConfigManager m = new TopicConfigManager(new JsonConfigFile(dir.resolve("topics.json")), true,
            SystemTopics.templateOnly(true, 8), () -> now[0]);
        m.load();
        assertEquals(new DataVersion(2, 1_700_000_000_000L, 7), m.dataVersion(), "nothing changed at load");

        now[0] += 5;
        m.createOrUpdate(TopicConfig.of("Orders", 4, Perm.READ | Perm.WRITE));
        assertEquals(new DataVersion(2, 1_800_000_000_005L, 8), m.dataVersion());
        m.createIfAbsent("Orders", 4, Perm.READ | Perm.WRITE);
        assertEquals(8, m.dataVersion().counter(), "finding an existing topic is no change");

        TopicConfigManager reopened = TopicConfigManager.open(dir, true, 8);
        assertEquals(m.dataVersion(), reopened.dataVersion());
    }

    @Test
    void validatorNamesTheProblem() {
        assertTrue(TopicValidator.invalidReason("a b").contains("illegal characters"));
        assertTrue(TopicValidator.invalidReason("x".repeat(128)).contains("longer than"));
        assertNull(TopicValidator.invalidReason("%RETRY%group-1|x_y"));
        assertTrue(TopicValidator.isNotAllowedSendTopic("SCHEDULE_TOPIC_XXXX"));
    }

    @Test
    void aNegativeQueueCountOrAWrongPermStopsTheOpenNamingTheTopic() throws IOException {
        for (String bad : new String[] {"\"writeQueueNums\":-3", "\"readQueueNums\":\"four\"", "\"perm\":8"}) {
            Files.writeString(dir.resolve("topics.json"), "{\"topicConfigTable\":{\"T\":{\"topicName\":\"T\","
                + "\"readQueueNums\":4,\"writeQueueNums\":4,\"perm\":6," + bad + "}}}");
            IOException e = assertThrows(IOException.class, () -> TopicConfigManager.open(dir, true, 8), bad);
            assertTrue(e.getMessage().contains("topic T: "), e.getMessage());
        }
    }
}
