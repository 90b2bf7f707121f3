package io.basalt.broker.metadata;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.basalt.common.service.ErrorPolicy;
import io.basalt.common.service.ServiceThread;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the broker's metadata tables (topics.json, subscriptionGroup.json) off the request threads:
 * a change on a send or heartbeat only {@linkplain Table#markDirty() marks its table dirty}, and this
 * thread writes each dirty table at most once per {@link #DEFAULT_INTERVAL_MS}, however many changes came
 * in between (a flood of 24,000 new topic names costs one 1.9 MB write every interval instead of 24,000).
 * RocketMQ writes the whole file synchronously on every change.
 *
 * <p>A change that has to be durable before its answer (an admin request) calls {@link Table#persistNow()}
 * on its own thread instead. A write that fails leaves the table dirty: it is tried again next round.
 * {@link #shutdown()} writes every dirty table once more before it returns.
 *
 * <p>What a crash between a change and its write costs: the auto-created topics of that interval.
 * Their messages are not lost: the broker re-derives the topics of the consume queues on disk at start
 * ({@code TopicConfigManager.recoverTopicsFromQueues}).
 *
 * <p>Threads: {@code markDirty} from any thread; {@code doWork} on the thread "MetadataPersister".
 */
public final class MetadataPersister extends ServiceThread {
    private static final Logger log = LoggerFactory.getLogger(MetadataPersister.class);

    /**
     * 200 ms: a topics.json of 24,000 topics (1.9 MB) takes about 10–30 ms to write and fsync, so even a
     * flood leaves the disk to the CommitLog 85–95 % of the time; a new topic is on disk within 0.2 s,
     * the same order as an async-flushed message.
     */
    public static final long DEFAULT_INTERVAL_MS = 200;

    /** A table this thread writes: how to write it, and whether it changed since its last write. */
    public interface Persistable {
        /** Writes the table's file atomically (temporary file, fsync, rename). */
        void persist() throws IOException;
    }

    /** One registered table; its dirty flag is set by any thread and cleared by the write that covers it. */
    public final class Table {
        private final String name;
        private final Persistable target;
        private final AtomicBoolean dirty = new AtomicBoolean();

        private Table(String name, Persistable target) {
            this.name = name;
            this.target = target;
        }

        /**
         * The table changed; it is written within one interval. Never blocks, and does not wake the thread:
         * changes arriving during an interval share its one write.
         */
        public void markDirty() {
            dirty.set(true);
        }

        /** Writes the table now, on the caller's thread, covering every change made before the call. */
        public void persistNow() throws IOException {
            dirty.set(false);
            try {
                target.persist();
            } catch (IOException | RuntimeException e) {
                dirty.set(true);
                throw e;
            }
            writes.incrementAndGet();
        }

        public boolean isDirty() {
            return dirty.get();
        }

        /** Writes the table when dirty; the flag is cleared before the write so a change made during it is kept. */
        boolean persistIfDirty() {
            if (!dirty.compareAndSet(true, false)) {
                return false;
            }
            try {
                target.persist();
                writes.incrementAndGet();
                return true;
            } catch (IOException | RuntimeException e) {
                dirty.set(true);
                failures.incrementAndGet();
                log.error("persisting {} failed, retrying in {} ms: {}", name, intervalMs, e.toString());
                return false;
            }
        }
    }

    private final long intervalMs;
    private final List<Table> tables = new CopyOnWriteArrayList<>();
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();

    public MetadataPersister(long intervalMs, ErrorPolicy errorPolicy) {
        super("MetadataPersister", errorPolicy);
        if (intervalMs < 0) {
            throw new IllegalArgumentException("intervalMs must be >= 0: " + intervalMs);
        }
        this.intervalMs = intervalMs;
    }

    /** Registers a table under a name for the logs (its file name). Call before changes may come. */
    public Table register(String name, Persistable target) {
        Table t = new Table(name, target);
        tables.add(t);
        return t;
    }

    /** Table writes done (by this thread or {@code persistNow}). */
    public long writes() {
        return writes.get();
    }

    /** Background writes that failed (each retried). */
    public long failures() {
        return failures.get();
    }

    @Override
    protected int doWork() {
        int written = 0;
        for (Table t : tables) {
            if (t.persistIfDirty()) {
                written++;
            }
        }
        return written;
    }

    @Override
    protected long idleWaitMs() {
        return intervalMs;
    }

    /** One write per interval at most: the wait follows every round, a busy one too. */
    @Override
    protected boolean waitsAfterEveryRound() {
        return true;
    }

    @Override
    protected void onShutdown() {
        doWork();
    }
}
