package io.basalt.broker.metadata;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.broker.subscription.SubscriptionGroupConfig;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.common.service.ErrorPolicy;

class MetadataPersisterTest {
    @TempDir
    Path dir;

    @Test
    void manyChangesInOneIntervalCostOneWrite() {
        AtomicInteger writes = new AtomicInteger();
        MetadataPersister p = new MetadataPersister(60_000, ErrorPolicy.resilient());
        MetadataPersister.Table t = p.register("t", writes::incrementAndGet);
        for (int i = 0; i < 1000; i++) {
            t.markDirty();
        }
        assertEquals(1, p.doWork());
        assertEquals(0, p.doWork(), "nothing changed since the write");
        assertEquals(1, writes.get());
    }

    @Test
    void aFailedWriteStaysDirtyAndIsRetried() {
        AtomicInteger attempts = new AtomicInteger();
        MetadataPersister p = new MetadataPersister(60_000, ErrorPolicy.resilient());
        MetadataPersister.Table t = p.register("t", () -> {
            if (attempts.incrementAndGet() == 1) {
                throw new IOException("disk says no");
            }
        });
        t.markDirty();
        assertEquals(0, p.doWork());
        assertTrue(t.isDirty());
        assertEquals(1, p.failures());
        assertEquals(1, p.doWork());
        assertFalse(t.isDirty());
    }

    @Test
    void theRunningThreadWritesWithinItsIntervalAndShutdownWritesWhatIsLeft() {
        AtomicInteger writes = new AtomicInteger();
        MetadataPersister p = new MetadataPersister(50, ErrorPolicy.resilient());
        MetadataPersister.Table t = p.register("t", writes::incrementAndGet);
        p.start();
        try {
            t.markDirty();
            await().atMost(Duration.ofSeconds(5)).until(() -> writes.get() == 1);
        } finally {
            p.shutdown();
        }
        MetadataPersister slow = new MetadataPersister(3_600_000, ErrorPolicy.resilient());
        AtomicInteger slowWrites = new AtomicInteger();
        MetadataPersister.Table s = slow.register("s", slowWrites::incrementAndGet);
        slow.start();
        s.markDirty();
        slow.shutdown();
        assertEquals(1, slowWrites.get(), "shutdown writes the dirty table although its interval is an hour away");
    }

    @Test
    void sendPathCreationsAreDeferredAndAdminChangesWrittenAtOnce() throws IOException {
        TopicConfigManager m = TopicConfigManager.open(dir, true, 8);
        MetadataPersister p = new MetadataPersister(3_600_000, ErrorPolicy.resilient());
        m.persistSendPathChangesWith(p);
        m.createTopicInSendMessageMethod("Auto", "TBW102", "peer", 4, 0).orElseThrow();
        m.createIfAbsent("%RETRY%g", 1, Perm.READ | Perm.WRITE);
        assertNull(TopicConfigManager.open(dir, true, 8).get("Auto"), "not written on the send thread");
        assertEquals(1, p.doWork());
        TopicConfigManager afterBatch = TopicConfigManager.open(dir, true, 8);
        assertNotNull(afterBatch.get("Auto"));
        assertNotNull(afterBatch.get("%RETRY%g"));

        m.createOrUpdate(TopicConfig.of("Admin", 2, Perm.READ | Perm.WRITE));
        assertNotNull(TopicConfigManager.open(dir, true, 8).get("Admin"), "an admin change is durable at once");
    }

    @Test
    void autoCreatedGroupsAreDeferredAndAdminGroupChangesWrittenAtOnce() throws IOException {
        SubscriptionGroupManager groups = SubscriptionGroupManager.open(dir, true);
        MetadataPersister p = new MetadataPersister(3_600_000, ErrorPolicy.resilient());
        groups.persistAutoCreatedGroupsWith(p);
        groups.findOrAutoCreate("cg-auto").orElseThrow();
        assertTrue(SubscriptionGroupManager.open(dir, false).get("cg-auto").isEmpty(), "not written on the request thread");
        assertEquals(1, p.doWork());
        assertTrue(SubscriptionGroupManager.open(dir, false).get("cg-auto").isPresent());
        groups.createOrUpdate(SubscriptionGroupConfig.defaults("cg-admin"));
        assertTrue(SubscriptionGroupManager.open(dir, false).get("cg-admin").isPresent(), "an admin change is durable at once");
    }

    @Test
    void theWriteIsAtomicAnOldCopyIsNeverHalfOverwritten() throws IOException {
        TopicConfigManager m = TopicConfigManager.open(dir, true, 8);
        MetadataPersister p = new MetadataPersister(3_600_000, ErrorPolicy.resilient());
        m.persistSendPathChangesWith(p);
        for (int i = 0; i < 2000; i++) {
            m.createTopicInSendMessageMethod("T" + i, "TBW102", "peer", 4, 0).orElseThrow();
        }
        p.doWork();
        try (var files = Files.list(dir)) {
            List<String> names = files.map(f -> f.getFileName().toString()).toList();
            assertTrue(names.stream().noneMatch(n -> n.endsWith(".tmp")), "no temporary file left: " + names);
        }
        assertEquals(2000 + 1, TopicConfigManager.open(dir, true, 8).all().size());
    }

    @Test
    void topicsWithQueuesOnDiskButMissingFromTheTableArePutBack() throws IOException {
        TopicConfigManager m = TopicConfigManager.open(dir, true, 8);
        m.createOrUpdate(TopicConfig.of("Known", 2, Perm.READ | Perm.WRITE));
        List<String> back = m.recoverTopicsFromQueues(Map.of("Known", Set.of(0, 1, 5), "Lost", Set.of(0, 3),
            "SCHEDULE_TOPIC_XXXX", Set.of(2)));
        assertEquals(List.of("Lost"), back);
        TopicConfig lost = TopicConfigManager.open(dir, true, 8).get("Lost");
        assertEquals(4, lost.readQueueNums());
        assertEquals(4, lost.writeQueueNums());
        assertEquals(Perm.READ | Perm.WRITE, lost.perm());
        assertEquals(2, m.get("Known").readQueueNums(), "a known topic is left as it is");
        assertNull(m.get("SCHEDULE_TOPIC_XXXX"));
    }
}
