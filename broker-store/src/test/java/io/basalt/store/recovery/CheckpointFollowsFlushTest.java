package io.basalt.store.recovery;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.store.BrokerMessage;
import io.basalt.store.FlushDiskType;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.StoreConfig;
import io.basalt.store.commitlog.CommitLog;

/**
 * The durable point a crash recovery reads is the last flush, not the last forced checkpoint (forced
 * only every flushCommitLogThoroughInterval): a record flushed and acknowledged just before a
 * process crash lies below it, so recovery never cuts it as a torn tail.
 */
class CheckpointFollowsFlushTest {
    @TempDir
    Path dir;

    @Test
    void everySyncFlushMovesTheDurablePointInTheCheckpointFile() throws Exception {
        StoreConfig config = CrashFiles.config(dir, FlushDiskType.SYNC_FLUSH, false).toBuilder()
            .flushCommitLogThoroughInterval(3_600_000).build();
        CommitLog log = CommitLog.open(config);
        try {
            log.load();
            log.start();
            for (int i = 0; i < 50; i++) {
                BrokerMessage m = BrokerMessage.builder().topic("T").queueId(0).body(("m" + i).getBytes())
                    .properties(Map.of()).bornTimestamp(1000 + i)
                    .bornHost(new InetSocketAddress(InetAddress.getLoopbackAddress(), 5000))
                    .storeHost(new InetSocketAddress(InetAddress.getLoopbackAddress(), 10911)).build();
                assertEquals(PutMessageStatus.PUT_OK, log.asyncPutMessage(m).join().status());
                long acknowledged = log.maxOffset();
                // what a recovery would read from the file (the page cache a killed process leaves)
                await().atMost(Duration.ofSeconds(10)).until(() -> readDurablePoint() == acknowledged);
            }
        } finally {
            log.shutdown();
        }
    }

    private long readDurablePoint() throws Exception {
        Path copy = dir.resolve("checkpoint-read");
        java.nio.file.Files.copy(dir.resolve(StoreCheckpoint.FILE_NAME), copy,
            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        try (StoreCheckpoint read = StoreCheckpoint.open(copy)) {
            return read.physicRecoveryOffset();
        }
    }
}
