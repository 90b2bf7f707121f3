package io.basalt.store;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts the CommitLog records a read found corrupt (bit rot: their CRC no longer matches) and logs
 * them at ERROR, at most one line per {@link #LOG_INTERVAL_MS} so a consumer retrying a bad record
 * does not flood the log; a line after a quiet spell says how many were left unlogged. Any thread.
 */
final class CorruptRecordLog {
    private static final Logger LOG = LoggerFactory.getLogger(CorruptRecordLog.class);
    static final long LOG_INTERVAL_MS = 10_000;

    private final AtomicLong found = new AtomicLong();
    private final AtomicLong unlogged = new AtomicLong();
    private final AtomicLong lastLogMs = new AtomicLong(Long.MIN_VALUE);
    private final LongSupplier clockMs;

    CorruptRecordLog(LongSupplier clockMs) {
        this.clockMs = clockMs;
    }

    /** Records one corrupt record at {@code physicalOffset} in {@code file}, with the check's reason. */
    void report(String file, long physicalOffset, String topic, int queueId, long queueOffset, String reason) {
        found.incrementAndGet();
        long now = clockMs.getAsLong();
        long last = lastLogMs.get();
        if (last != Long.MIN_VALUE && now - last < LOG_INTERVAL_MS || !lastLogMs.compareAndSet(last, now)) {
            unlogged.incrementAndGet();
            return;
        }
        long skipped = unlogged.getAndSet(0);
        LOG.error("Corrupt CommitLog record in file {} at offset {} (queue {}-{} offset {}): {}; not served to "
                + "consumers{}", file, physicalOffset, topic, queueId, queueOffset, reason,
                skipped == 0 ? "" : " (" + skipped + " more corrupt reads since the last line)");
    }

    /** Corrupt records found by reads since start (a record read twice counts twice). */
    long count() {
        return found.get();
    }
}
