package io.basalt.broker.offset;

import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.basalt.common.concurrent.DaemonThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes consumerOffset.json soon after a commit changed an offset, instead of only every
 * {@code flushConsumerOffsetInterval}: a {@code kill -9} of the broker then loses at most the commits
 * of one write in progress (tens of milliseconds) rather than up to a whole interval, so a consumer
 * group's committed offset does not go back across a crash (a redelivery of everything it consumed
 * in the last seconds).
 *
 * <p>Trade-off: one atomic, fsynced write of the whole file per batch instead of one per interval.
 * Commits are batched — a change while a write runs schedules exactly one more write, which then
 * carries every commit that arrived meanwhile — so the write rate is bounded by the write's own cost
 * (never more than one write in flight), and it happens on this thread, never on a request thread.
 * The file layout stays RocketMQ's. Commit threads call {@link #changed()}; the persister's own thread
 * writes; {@link #close()} is called once at shutdown.
 */
public final class OffsetPersister implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OffsetPersister.class);

    private final ConsumerOffsetManager offsets;
    private final ExecutorService writer = Executors.newSingleThreadExecutor(DaemonThreads.named("ConsumerOffsetPersister"));
    private final AtomicBoolean pending = new AtomicBoolean();

    public OffsetPersister(ConsumerOffsetManager offsets) {
        this.offsets = offsets;
    }

    /** Any thread: an offset changed; schedules a write unless one is already waiting to start. */
    public void changed() {
        if (pending.compareAndSet(false, true)) {
            try {
                writer.execute(this::write);
            } catch (java.util.concurrent.RejectedExecutionException closed) {
                pending.set(false); // shutting down: the final persist of the shutdown writes it
            }
        }
    }

    private void write() {
        // cleared before the write: a commit that lands during it schedules the next write
        pending.set(false);
        try {
            offsets.persist();
        } catch (IOException | RuntimeException e) {
            log.error("persisting consumer offsets failed: {}", e.toString());
        }
    }

    /** Waits for a write in progress; later changes are left to the caller's final persist. */
    @Override
    public void close() {
        writer.shutdown();
        try {
            if (!writer.awaitTermination(10, TimeUnit.SECONDS)) {
                log.warn("consumer offset write still running after 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
