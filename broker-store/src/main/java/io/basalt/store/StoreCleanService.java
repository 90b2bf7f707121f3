package io.basalt.store;

import java.io.IOException;
import java.time.Clock;

import io.basalt.store.commitlog.CommitLog;
import io.basalt.store.index.IndexService;
import io.basalt.store.queue.ConsumeQueueStore;
import io.basalt.store.retention.DiskSpaceMonitor;
import io.basalt.store.retention.RetentionPolicy;
import io.basalt.common.service.ErrorPolicy;
import io.basalt.common.service.ServiceThread;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retention (RocketMQ's CleanCommitLogService and CleanConsumeQueueService in one round): deletes
 * CommitLog files as {@link RetentionPolicy} decides from the clock and the disk watch's last sample,
 * then the ConsumeQueue and index files lying wholly below the CommitLog's new min offset. The
 * file queue never deletes the newest file nor one a reader holds (it stops there and retries next
 * round). Runs every {@code cleanResourceInterval} ms; tests call {@link #doWork()} directly.
 * Resilient ({@link ErrorPolicy#resilient()}): retention deletes caches of nothing the producer
 * waits for, so an unexpected error is counted, logged and the next round tries again.
 */
final class StoreCleanService extends ServiceThread {
    private static final Logger LOG = LoggerFactory.getLogger(StoreCleanService.class);

    private final CommitLog commitLog;
    private final ConsumeQueueStore queues;
    private final IndexService index;
    private final DiskSpaceMonitor disk;
    private final RetentionPolicy policy;
    private final Clock clock;
    private final long intervalMs;
    private final long deleteIntervalMs;
    private final long destroyWaitMs;

    StoreCleanService(CommitLog commitLog, ConsumeQueueStore queues, IndexService index, DiskSpaceMonitor disk,
                      RetentionPolicy policy, Clock clock, StoreConfig config) {
        super("CleanCommitLogService", ErrorPolicy.resilient());
        this.commitLog = commitLog;
        this.queues = queues;
        this.index = index;
        this.disk = disk;
        this.policy = policy;
        this.clock = clock;
        this.intervalMs = config.cleanResourceInterval();
        this.deleteIntervalMs = config.deleteCommitLogFilesInterval();
        this.destroyWaitMs = config.destroyMapedFileIntervalForcibly();
    }

    @Override
    protected int doWork() {
        return clean();
    }

    /** One round per interval, whatever it deleted. */
    @Override
    protected boolean waitsAfterEveryRound() {
        return true;
    }

    /** One cleaning round; returns the number of files deleted. */
    int clean() {
        long now = clock.millis();
        RetentionPolicy.Decision decision = policy.decide(now, clock.getZone(), disk.maxUsedRatio());
        int deleted = 0;
        if (decision.deleteExpired()) {
            // The file queue measures age against the system clock; shift the reserved time by the
            // injected clock's offset so expiry follows the store's clock.
            long expiredMillis = policy.fileReservedTimeMs() - (now - System.currentTimeMillis());
            deleted = commitLog.deleteExpiredFiles(expiredMillis, deleteIntervalMs, destroyWaitMs, decision.cleanImmediately(),
                "forced clean, " + decision.reason());
            if (deleted > 0) {
                LOG.info("Deleted {} CommitLog files ({}); CommitLog now starts at {}", deleted, decision.reason(),
                        commitLog.minOffset());
            }
        }
        long min = commitLog.minOffset();
        try {
            deleted += queues.deleteFilesBelow(min);
            if (index != null) {
                deleted += index.deleteFilesBelow(min);
            }
        } catch (IOException e) {
            LOG.error("Deleting ConsumeQueue or index files below CommitLog offset {} failed: {}", min, e.toString());
        }
        return deleted;
    }

    @Override
    protected long idleWaitMs() {
        return intervalMs;
    }
}
