package io.basalt.broker.schedule;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.common.service.ErrorPolicy;
import io.basalt.common.service.ServiceThread;
import io.basalt.store.BrokerMessage;
import io.basalt.store.DelayLevels;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageResult;
import io.basalt.store.QueueEntry;
import io.basalt.store.StoredMessage;

/**
 * Delivers one delay level: reads SCHEDULE_TOPIC_XXXX queue level − 1 in order and puts every due message back
 * into its real topic. Unlike RocketMQ's one synchronous put at a time, up to {@code maxPending} puts are in
 * flight at once; the level's offset in {@link DelayOffsetTable} only moves over the contiguous prefix of entries
 * whose put was stored, so a crash re-delivers at most what was in flight. A failed put is retried at the same
 * offset with a back-off (100 ms doubling to 5 s) and never skipped; only an entry whose record is provably gone
 * (below the CommitLog's min offset) or that is no delayed message (no REAL_TOPIC / REAL_QID) is skipped, counted
 * and logged. An entry whose deliver time lies more than the level's delay ahead of the clock (a clock set back)
 * is due now, as RocketMQ's step 3.
 *
 * <p>The thread {@code ScheduleMessageTimerThread_<level>} waits until the next deliver time, a completed put, a
 * retry time or a new entry in its queue ({@link #wakeup()}), at most 1 s. Everything but the counters is
 * confined to it.
 */
final class LevelDeliverer extends ServiceThread {
    private static final Logger log = LoggerFactory.getLogger(LevelDeliverer.class);
    static final String HALF_TOPIC = "RMQ_SYS_TRANS_HALF_TOPIC";
    static final long FIRST_RETRY_MS = 100;
    static final long MAX_RETRY_MS = 5_000;
    private static final long MAX_IDLE_MS = 1_000;
    private static final int READ_BATCH = 256;
    private static final long DRAIN_ON_SHUTDOWN_MS = 5_000;

    /** Told of every stored delivery (lateness, counts). Called on the deliverer's thread. */
    interface Listener {
        void delivered(int level, long dueMillis, long storedMillis);

        void progressed(int level);
    }

    /** One entry between being read and being part of the delivered prefix. */
    private static final class InFlight {
        final QueueEntry entry;
        final long dueMs;
        CompletableFuture<PutMessageResult> put;
        BrokerMessage message;
        boolean done;
        int attempts;
        long retryAtMs;

        InFlight(QueueEntry entry, long dueMs) {
            this.entry = entry;
            this.dueMs = dueMs;
        }
    }

    private final int level;
    private final int queueId;
    private final long delayMs;
    private final MessageStore store;
    private final DelayOffsetTable table;
    private final int maxPending;
    private final BooleanSupplier writable;
    private final LongSupplier clock;
    private final Listener listener;
    private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
    private final DeliveryCounters counters;
    /** Next queue offset to read (past every in-flight entry). */
    private long readOffset;
    /** Next offset to deliver: everything below was stored in its real topic. */
    private long delivered;
    /** Deliver time of the first entry read that is not due yet, or Long.MAX_VALUE. */
    private long nextDueMs = Long.MAX_VALUE;

    LevelDeliverer(int level, long delayMs, long startOffset, MessageStore store, DelayOffsetTable table, int maxPending,
                   BooleanSupplier writable, LongSupplier clock, Listener listener, DeliveryCounters counters) {
        super("ScheduleMessageTimerThread_" + level, ErrorPolicy.resilient());
        this.level = level;
        this.queueId = DelayLevels.queueId(level);
        this.delayMs = delayMs;
        this.store = store;
        this.table = table;
        this.maxPending = maxPending;
        this.writable = writable;
        this.clock = clock;
        this.listener = listener;
        this.counters = counters;
        this.readOffset = startOffset;
        this.delivered = startOffset;
    }

    int level() {
        return level;
    }

    @Override
    protected int doWork() {
        if (!writable.getAsBoolean()) {
            return 0;
        }
        long now = clock.getAsLong();
        int work = settle(now);
        work += retry(now);
        work += read(now);
        work += advance();
        updateOldestDue(now);
        return work;
    }

    /** Looks at every completed put: stored ones are done, failed ones wait for their retry. */
    private int settle(long now) {
        int work = 0;
        for (InFlight f : inFlight) {
            if (f.put == null || !f.put.isDone()) {
                continue;
            }
            PutMessageResult result = f.put.getNow(null);
            Throwable failure = null;
            if (f.put.isCompletedExceptionally()) {
                failure = f.put.handle((r, e) -> e).join();
                result = null;
            }
            f.put = null;
            work++;
            if (result != null && result.status().isStored()) {
                f.done = true;
                f.message = null;
                counters.delivered.increment();
                long stored = result.appendResult() == null ? now : result.appendResult().storeTimestamp();
                listener.delivered(level, f.dueMs, stored);
            } else {
                f.attempts++;
                long backoff = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS << Math.min(16, f.attempts - 1));
                f.retryAtMs = now + backoff;
                counters.putFailures.increment();
                if (f.attempts == 1 || f.attempts % 20 == 0) {
                    log.warn("delay level {}: putting the message at offset {} back into {} failed ({}, attempt {}); "
                            + "retrying the same offset in {} ms", level, f.entry.queueOffset(),
                        f.message == null ? "its topic" : f.message.topic(),
                        failure != null ? failure.toString() : result == null ? "no result" : result.status(),
                        f.attempts, backoff);
                }
            }
        }
        return work;
    }

    /** Puts again every failed entry whose back-off has passed. */
    private int retry(long now) {
        int work = 0;
        for (InFlight f : inFlight) {
            if (!f.done && f.put == null && f.retryAtMs <= now) {
                submit(f);
                work++;
            }
        }
        return work;
    }

    /** Reads new entries while fewer than maxPending are in flight and the next one is due. */
    private int read(long now) {
        int work = 0;
        nextDueMs = Long.MAX_VALUE;
        while (inFlight.size() < maxPending) {
            List<QueueEntry> entries = store.readQueueEntries(DelayLevels.SCHEDULE_TOPIC, queueId, readOffset,
                Math.min(READ_BATCH, maxPending - inFlight.size()));
            if (entries.isEmpty()) {
                realignIfOutside();
                return work;
            }
            for (QueueEntry e : entries) {
                long due = e.tagsCode();
                if (due > now + delayMs) {
                    // the clock went back (or the levels were shortened): due now, as RocketMQ
                    due = now;
                }
                if (due > now) {
                    nextDueMs = due;
                    return work;
                }
                InFlight f = new InFlight(e, due);
                inFlight.add(f);
                readOffset = e.queueOffset() + 1;
                work++;
                if (e.size() == Integer.MAX_VALUE && e.physicalOffset() == 0) {
                    f.done = true;   // a placeholder entry: no message
                } else {
                    submit(f);
                }
            }
        }
        return work;
    }

    /** With nothing in flight, an offset outside the queue (files deleted, or a stale file) moves into it. */
    private void realignIfOutside() {
        if (!inFlight.isEmpty()) {
            return;
        }
        long min = store.getMinOffsetInQueue(DelayLevels.SCHEDULE_TOPIC, queueId);
        long max = store.getMaxOffsetInQueue(DelayLevels.SCHEDULE_TOPIC, queueId);
        long target = readOffset < min ? min : readOffset > max ? max : readOffset;
        if (target != readOffset) {
            log.warn("delay level {}: offset {} is outside the queue [{}, {}]; going on from {}", level, readOffset,
                min, max, target);
            readOffset = target;
            delivered = target;
            if (table.update(level, target, clock.getAsLong())) {
                listener.progressed(level);
            }
        }
    }

    private void submit(InFlight f) {
        if (f.message == null) {
            StoredMessage scheduled = store.lookMessageByOffset(f.entry.physicalOffset());
            if (scheduled == null) {
                if (f.entry.physicalOffset() < store.getMinPhyOffset()) {
                    counters.skipped.increment();
                    log.error("delay level {}: the message at offset {} (CommitLog offset {}) is gone, the CommitLog "
                        + "now starts at {}; skipped", level, f.entry.queueOffset(), f.entry.physicalOffset(),
                        store.getMinPhyOffset());
                    f.done = true;
                } else {
                    f.put = CompletableFuture.failedFuture(new IllegalStateException("CommitLog record at "
                        + f.entry.physicalOffset() + " not readable"));
                }
                return;
            }
            BrokerMessage due = DueMessage.of(scheduled);
            if (due == null) {
                counters.skipped.increment();
                log.error("delay level {}: the record at offset {} (CommitLog offset {}) has no REAL_TOPIC / REAL_QID; "
                    + "skipped", level, f.entry.queueOffset(), f.entry.physicalOffset());
                f.done = true;
                return;
            }
            if (HALF_TOPIC.equals(due.topic())) {
                counters.skipped.increment();
                log.error("[BUG] the real topic of schedule msg is {}, discard the msg. offset={}", due.topic(),
                    f.entry.queueOffset());
                f.done = true;
                return;
            }
            f.message = due;
        }
        f.put = store.asyncPutMessage(f.message);
        f.put.whenComplete((r, e) -> wakeup());
    }

    /** Moves the level's offset over the done prefix. */
    private int advance() {
        long before = delivered;
        while (!inFlight.isEmpty() && inFlight.peekFirst().done) {
            delivered = inFlight.pollFirst().entry.queueOffset() + 1;
        }
        if (delivered != before) {
            if (table.update(level, delivered, clock.getAsLong())) {
                listener.progressed(level);
            }
            return 1;
        }
        return 0;
    }

    private void updateOldestDue(long now) {
        InFlight head = inFlight.peekFirst();
        counters.oldestDueMs = head != null ? head.dueMs : nextDueMs <= now ? nextDueMs : 0;
    }

    @Override
    protected long idleWaitMs() {
        long now = clock.getAsLong();
        long until = now + MAX_IDLE_MS;
        if (nextDueMs != Long.MAX_VALUE) {
            until = Math.min(until, nextDueMs);
        }
        for (InFlight f : inFlight) {
            if (!f.done && f.put == null) {
                until = Math.min(until, f.retryAtMs);
            }
        }
        return Math.max(1, until - now);
    }

    /** Waits a bounded time for the puts in flight, so that the offset covers what was stored before the stop. */
    @Override
    protected void onShutdown() {
        long deadline = System.nanoTime() + DRAIN_ON_SHUTDOWN_MS * 1_000_000;
        for (InFlight f : inFlight) {
            CompletableFuture<PutMessageResult> put = f.put;
            long left = deadline - System.nanoTime();
            if (put != null && left > 0) {
                try {
                    put.get(left, java.util.concurrent.TimeUnit.NANOSECONDS);
                } catch (Exception e) {
                    // settled below as failed or still running: not part of the delivered prefix
                }
            }
        }
        settle(clock.getAsLong());
        advance();
    }
}
