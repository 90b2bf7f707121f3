package io.basalt.store;

import java.io.IOException;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;

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
    /** Replaced while the store runs when the broker's retention settings change (UPDATE_BROKER_CONFIG). */
    private volatile RetentionPolicy policy;
    private final Clock clock;
    private final long intervalMs;
    private final long deleteIntervalMs;
    private final long destroyWaitMs;
    /** Rounds left that delete expired CommitLog files outside the deleteWhen hours (deleteExpiredCommitLog). */
    private final AtomicInteger manualRounds = new AtomicInteger();
    /** The ConsumeQueue and index cleanup runs on this thread and on an admin request's (cleanExpiredCQ). */
    private final Object queueCleanLock = new Object();

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

    /**
     * RocketMQ's DELETE_EXPIRED_COMMITLOG: the next {@link #MANUAL_ROUNDS} rounds delete expired CommitLog files
     * whatever the hour (deleteWhen is ignored; fileReservedTime still decides what is expired). The next round
     * starts at once.
     */
    void requestManualDeletion() {
        manualRounds.set(MANUAL_ROUNDS);
        wakeup();
    }

    /** RocketMQ's count of manual deletion rounds. */
    static final int MANUAL_ROUNDS = 20;

    /** Manual deletion rounds still to run. */
    int manualRoundsLeft() {
        return manualRounds.get();
    }

    /** One cleaning round; returns the number of files deleted. */
    int clean() {
        long now = clock.millis();
        RetentionPolicy.Decision decision = policy.decide(now, clock.getZone(), disk.maxUsedRatio());
        boolean manual = manualRounds.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
        if (manual && !decision.deleteExpired()) {
            decision = new RetentionPolicy.Decision(true, false, "deleteExpiredCommitLog requested");
        }
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
        return deleted + cleanQueuesAndIndex();
    }

    /** A round's cleanup of the ConsumeQueue and index files: a failure is logged, the next round tries again. */
    private int cleanQueuesAndIndex() {
        try {
            return deleteQueueAndIndexFilesBelowMin();
        } catch (IOException e) {
            LOG.error("Deleting ConsumeQueue or index files below CommitLog offset {} failed: {}", commitLog.minOffset(),
                e.toString());
            return 0;
        }
    }

    /**
     * Deletes the ConsumeQueue and index files lying wholly below the CommitLog's min offset; returns how many.
     * Any thread (a round, or an admin request).
     */
    int deleteQueueAndIndexFilesBelowMin() throws IOException {
        synchronized (queueCleanLock) {
            long min = commitLog.minOffset();
            int deleted = queues.deleteFilesBelow(min);
            if (index != null) {
                deleted += index.deleteFilesBelow(min);
            }
            return deleted;
        }
    }

    @Override
    protected long idleWaitMs() {
        return intervalMs;
    }

    /** Uses {@code policy} from the next cleaning round on. */
    void updatePolicy(RetentionPolicy policy) {
        this.policy = policy;
    }
}
