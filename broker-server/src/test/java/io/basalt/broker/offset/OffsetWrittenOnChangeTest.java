package io.basalt.broker.offset;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;

import io.basalt.broker.metadata.MetadataPersister;
import io.basalt.common.service.ErrorPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A commit reaches consumerOffset.json by itself, through the metadata persister, without waiting for
 * the periodic write: before this, a kill -9 within flushConsumerOffsetInterval of a commit sent the
 * group's offset back (the crash loop saw 320 go back to 224).
 */
class OffsetWrittenOnChangeTest {
    @TempDir
    Path dir;

    @Test
    void aCommitIsOnDiskWithoutThePeriodicWrite() throws Exception {
        ConsumerOffsetManager offsets = ConsumerOffsetManager.open(dir);
        MetadataPersister persister = new MetadataPersister(50, ErrorPolicy.resilient());
        offsets.onChange(persister.register("consumerOffset.json", offsets::persist)::markDirty);
        persister.start();
        try {
            for (long o = 1; o <= 500; o++) {
                offsets.commitOffset("127.0.0.1", "cg", "T", (int) (o % 4), o);
            }
            // what a restart after kill -9 would read: the last commit of every queue
            await().atMost(ofSeconds(10)).until(() -> ConsumerOffsetManager.open(dir).queryOffset("cg", "T", 0) == 500);
            ConsumerOffsetManager reopened = ConsumerOffsetManager.open(dir);
            assertEquals(497, reopened.queryOffset("cg", "T", 1));
            assertEquals(498, reopened.queryOffset("cg", "T", 2));
            assertEquals(499, reopened.queryOffset("cg", "T", 3));
        } finally {
            persister.shutdown();
        }
    }

    @Test
    void anUnchangedCommitWritesNothing() throws Exception {
        ConsumerOffsetManager offsets = ConsumerOffsetManager.open(dir);
        int[] changes = new int[1];
        offsets.onChange(() -> changes[0]++);
        offsets.commitOffset("127.0.0.1", "cg", "T", 0, 5);
        offsets.commitOffset("127.0.0.1", "cg", "T", 0, 5);
        offsets.commitOffset("127.0.0.1", "cg", "T", 0, 6);
        assertEquals(2, changes[0]);
    }
}
