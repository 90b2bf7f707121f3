package io.basalt.store.queue;

import io.basalt.store.MessageArrivingListener;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.basalt.store.DelayLevels;
import io.basalt.store.MessageProperties;
import io.basalt.store.commitlog.MessageRecordDecoder;
import io.basalt.store.commitlog.RecordCheck;
import io.basalt.store.index.IndexService;
import io.basalt.common.service.ErrorPolicy;
import io.basalt.common.service.ServiceThread;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dispatcher (RocketMQ's ReputMessageService): tails the CommitLog from {@link #reputFromOffset()}
 * and turns each record into a ConsumeQueue entry and index keys.
 *
 * <p><b>What consumers see.</b> It dispatches only records that end at or below
 * {@link DispatchSource#dispatchLimit()}. The MessageStore sets that limit to the CommitLog's
 * <em>flushed</em> offset under SYNC_FLUSH, so a consumer never sees a message that a crash or power
 * loss could take back (the put future of such a message completes only after the same force()); and
 * to the readable (committed) offset under ASYNC_FLUSH, where acknowledged messages live in the page
 * cache and survive a process crash but not a power loss: there consumers may read what a power loss
 * would take back, exactly as the producer was told (ASYNC_FLUSH promises no durability).
 *
 * <p><b>Never skipping.</b> A record that fails its check inside the dispatchable range stops the
 * dispatcher: it logs one ERROR line with the offset and reason and sets {@link #alarm()}; nothing after
 * it is dispatched until an operator (or recovery on restart) deals with it. RocketMQ skips such
 * records, which makes acknowledged messages unconsumable (docs/pain-points.md#pp-16).
 *
 * <p><b>Gaps.</b> If a queue's next entry is beyond its end (its tail was lost, e.g. a torn
 * ConsumeQueue file after power loss), the dispatcher rewinds to the end of that queue's last entry
 * and re-dispatches from there (other queues skip what they already hold). Only if those records are
 * no longer in the CommitLog are the missing entries filled with placeholders.
 *
 * <p><b>Deleted topics.</b> A record of a topic deleted at a later CommitLog offset
 * ({@link DeletedTopics}) gets no ConsumeQueue entry (its index keys are still built, as RocketMQ
 * leaves the index of a deleted topic alone).
 *
 * <p><b>Durability-critical.</b> An unexpected error of a round (a bug, not a bad record) also stops
 * dispatch with an alarm and goes to the error policy the store gives it, its fail-stop: the store
 * turns read-only at once rather than acknowledging puts that consumers would never see.
 *
 * <p><b>Write failures (a full disk, no fds).</b> An {@link IOException} writing a ConsumeQueue entry or
 * index keys is not a bad record: dispatch pauses instead of stopping for good. {@link #writeBlocked()}
 * names the cause (the store refuses puts meanwhile, so no producer gets SEND_OK for a message no
 * consumer could read), the cursor goes back to the last published offset (the queues' appends are
 * idempotent), and the round is retried after a backoff doubling from {@value #FIRST_RETRY_MS} ms to
 * {@value #MAX_RETRY_MS} ms. The first success clears the block (one INFO line) and puts are accepted
 * again, without a restart. Retrying rather than fail-stop because the cause is usually transient
 * (space freed by retention or an operator) and nothing written is in doubt: a failed entry write is
 * rolled back and written again. An {@link Error} (an InternalError from SIGBUS in a mapping, which
 * allocating every file's blocks should rule out) stops dispatch with an alarm and goes to the error
 * policy (fail-stop).
 *
 * <p>Threads: one dispatcher thread runs {@link #doWork()} (or a test, without the thread). The
 * MessageStore wakes it ({@link #wakeup()}) after every append (after every commit with a transient
 * store pool); otherwise it polls every {@code idleWaitMs} (1 ms by default, as RocketMQ's reput
 * loop), which bounds the delay under SYNC_FLUSH, where the flushed offset moves without a wakeup. After a round
 * that dispatched something it pauses {@link #PAUSE_AFTER_WORK_NS} before the next one, however often it is woken.
 */
public final class ReputMessageService extends ServiceThread {
    private static final Logger LOG = LoggerFactory.getLogger(ReputMessageService.class);
    private static final int MAX_RECORDS_PER_ROUND = 4096;
    /**
     * The pause between rounds while records keep coming (RocketMQ's reput loop sleeps 1 ms between rounds): a busy
     * dispatcher takes what arrived in the pause as one batch instead of being woken and run once per put, which cost
     * a context switch per message (up to a third of a switch per message under 16 sync producers, measured). An idle
     * dispatcher is woken by the first put at once; a backlog (a full round) is drained without pausing.
     */
    static final long PAUSE_AFTER_WORK_NS = TimeUnit.MILLISECONDS.toNanos(1);
    static final long FIRST_RETRY_MS = 10;
    static final long MAX_RETRY_MS = 1000;

    private final DispatchSource source;
    private final ConsumeQueueStore consumeQueues;
    private final IndexService index;
    private final MessageArrivingListener listener;
    private final long idleWaitMs;
    private final MessageRecordDecoder decoder = new MessageRecordDecoder();
    /** Delay levels for the deliver time of SCHEDULE_TOPIC_XXXX records, null: tags hash for every record. */
    private final DelayLevels delayLevels;

    /** Published after each round's commit: everything below it is visible in the queues. */
    private volatile long reputFromOffset;
    /** Writer thread: the next record to read (ahead of reputFromOffset within a round). */
    private long cursor;
    private final List<DispatchRequest> arrived = new ArrayList<>();
    private volatile long lastStoreTimestamp;
    private long cursorStoreTimestamp;
    /** Writer thread: the last round stopped at its record bound, so more is waiting. */
    private boolean lastRoundFull;
    private volatile String alarm;
    private String lastRewind;
    private long rewindTo = -1;
    /** Why writing entries fails now (dispatch paused, retried), or null. */
    private volatile String writeBlocked;
    private long retryDelayMs;
    private long nextRetryNs;
    private long writeBlockedRounds;
    /** Writer thread: the write failure of the current round, or null. */
    private IOException writeFailure;

    /**
     * @param index    null when message indexing is off
     * @param listener null when nobody waits for arrivals
     * @param errorPolicy what an unexpected error does besides stopping dispatch (the store's fail-stop)
     */
    public ReputMessageService(DispatchSource source, ConsumeQueueStore consumeQueues, IndexService index,
                               MessageArrivingListener listener, long reputFromOffset, long idleWaitMs,
                               ErrorPolicy errorPolicy) {
        this(source, consumeQueues, index, listener, reputFromOffset, idleWaitMs, errorPolicy, null);
    }

    /**
     * As above; with {@code delayLevels} a {@link DelayLevels#SCHEDULE_TOPIC} record carrying a DELAY
     * property gets its deliver time as tagsCode (RocketMQ's {@code checkMessageAndReturnSize}).
     */
    public ReputMessageService(DispatchSource source, ConsumeQueueStore consumeQueues, IndexService index,
                               MessageArrivingListener listener, long reputFromOffset, long idleWaitMs,
                               ErrorPolicy errorPolicy, DelayLevels delayLevels) {
        super("ReputMessageService", errorPolicy);
        this.delayLevels = delayLevels;
        this.source = source;
        this.consumeQueues = consumeQueues;
        this.index = index;
        this.listener = listener;
        this.reputFromOffset = reputFromOffset;
        this.cursor = reputFromOffset;
        this.idleWaitMs = idleWaitMs;
    }

    /** Next CommitLog offset to dispatch: everything below it is in the ConsumeQueues and the index. */
    public long reputFromOffset() {
        return reputFromOffset;
    }

    /**
     * Store time of the last record whose entry is committed to its ConsumeQueue (what RocketMQ's
     * checkpoint logicsMsgTimestamp records once the queues are flushed); 0 before the first.
     */
    public long lastStoreTimestamp() {
        return lastStoreTimestamp;
    }

    /** Why dispatch stopped, or null while it runs. */
    public String alarm() {
        return alarm;
    }

    /**
     * Why dispatch is paused because writing its ConsumeQueue entries or index keys fails (e.g. "No
     * space left on device"), or null while it can write. Retried until it succeeds; any thread.
     */
    public String writeBlocked() {
        return writeBlocked;
    }

    /** Bytes of the dispatchable log not yet dispatched. */
    public long behindBytes() {
        return Math.max(0, source.dispatchLimit() - reputFromOffset);
    }

    @Override
    protected long idleWaitMs() {
        return idleWaitMs;
    }

    /**
     * Dispatches what is dispatchable now, up to a bound per round, then commits the queues' new
     * entries, publishes the new reput offset and tells the arrival listener. Returns the records
     * dispatched. An unexpected exception sets the alarm (nothing after the cursor is dispatched) and
     * is rethrown for the error policy.
     */
    @Override
    public int doWork() {
        if (alarm != null) {
            return 0;
        }
        if (writeBlocked != null && System.nanoTime() - nextRetryNs < 0) {
            return 0;
        }
        try {
            return dispatchRound();
        } catch (RuntimeException | Error e) {
            stop(cursor, "unexpected " + e);
            arrived.clear();
            throw e;
        }
    }

    private int dispatchRound() {
        int dispatched = 0;
        while (dispatched < MAX_RECORDS_PER_ROUND && alarm == null && writeFailure == null) {
            long limit = source.dispatchLimit();
            long from = cursor;
            if (from >= limit) {
                break;
            }
            int n = dispatchFile(from, limit, MAX_RECORDS_PER_ROUND - dispatched);
            if (n < 0) {
                break;
            }
            dispatched += n;
        }
        if (writeFailure != null) {
            // commit what was appended before the failure; the failed record is retried from the cursor
            try {
                consumeQueues.commit();
            } catch (IOException e) {
                writeFailure.addSuppressed(e);
            }
            blockWrites(writeFailure);
            return 0;
        }
        try {
            consumeQueues.commit();
        } catch (IOException e) {
            blockWrites(e);
            return 0;
        }
        if (writeBlocked != null) {
            LOG.info("Dispatch resumed at CommitLog offset {} after {} failed retries: ConsumeQueue and index writes "
                + "succeed again (they failed with: {})", reputFromOffset, writeBlockedRounds, writeBlocked);
            writeBlocked = null;
            writeBlockedRounds = 0;
        }
        reputFromOffset = cursor;
        if (cursorStoreTimestamp > 0) {
            lastStoreTimestamp = cursorStoreTimestamp;
        }
        if (listener != null) {
            for (DispatchRequest r : arrived) {
                listener.arriving(r.topic(), r.queueId(), r.consumeQueueOffset(), r.tagsCode(), r.storeTimestamp());
            }
        }
        arrived.clear();
        lastRoundFull = dispatched >= MAX_RECORDS_PER_ROUND;
        return dispatched;
    }

    @Override
    protected long pauseAfterWorkNanos() {
        return lastRoundFull ? 0 : PAUSE_AFTER_WORK_NS;
    }

    /**
     * Dispatches from {@code from} within one file; returns the records dispatched (the loop ends when
     * an alarm is set), or -1 when the rest is not dispatchable yet.
     */
    private int dispatchFile(long from, long limit, int maxRecords) {
        try (DispatchSource.View view = source.read(from)) {
            if (view == null) {
                long min = source.minOffset();
                if (from < min) {
                    LOG.warn("Dispatch offset {} is below the CommitLog min offset {} (files deleted, or a replica "
                        + "that began there); going on from there", from, min);
                    cursor = min;
                    return 0;
                }
                return -1;
            }
            ByteBuffer buffer = view.buffer();
            int readable = (int) Math.min(buffer.limit(), limit - from);
            buffer.limit(readable);
            int count = 0;
            int position = 0;
            while (position < readable && count < maxRecords) {
                long offset = from + position;
                long skipTo = source.skipCorrupt(offset);
                if (skipTo > offset) {
                    // a record recovery skipped as corrupt: never in a queue or the index
                    cursor = skipTo;
                    return count;
                }
                buffer.position(position);
                RecordCheck check = decoder.check(buffer, false);
                switch (check.status()) {
                    case OK -> {
                        if (check.physicalOffset() != offset) {
                            stop(offset, "record says it is at offset " + check.physicalOffset());
                            return count;
                        }
                        if (!dispatch(offset, check, tagsCode(check, buffer, position))) {
                            return count;
                        }
                        if (rewindTo >= 0) {
                            cursor = rewindTo;
                            rewindTo = -1;
                            return count;
                        }
                        position += check.size();
                        cursor = offset + check.size();
                        count++;
                    }
                    case END_OF_FILE -> {
                        cursor = source.nextFileOffset(offset);
                        return count;
                    }
                    case TRUNCATED -> {
                        if (limit >= source.nextFileOffset(offset)) {
                            stop(offset, check.reason() + ", although the log goes on in the next file");
                        }
                        return count > 0 ? count : -1;
                    }
                    case CORRUPT -> {
                        stop(offset, check.reason());
                        return count;
                    }
                    default -> throw new IllegalStateException("unknown record status " + check.status());
                }
            }
            return count;
        }
    }

    /**
     * The consume-queue tagsCode of a record: the TAGS hash, except for a SCHEDULE_TOPIC_XXXX record
     * with a DELAY property, whose tagsCode is its deliver time (store time + the level's delay, the
     * level clamped to the maximum; a level below 1 or not a number: store time + 1 s). Only records of
     * that topic have their properties looked at again.
     */
    private long tagsCode(RecordCheck c, ByteBuffer buffer, int position) {
        if (delayLevels == null || !DelayLevels.SCHEDULE_TOPIC.equals(c.topic())) {
            return c.tagsCode();
        }
        ByteBuffer record = buffer.duplicate();
        record.limit(position + c.size()).position(position);
        ByteBuffer properties = MessageRecordDecoder.properties(record);
        String level = properties == null ? null
            : MessageProperties.find(properties, 0, properties.limit(), MessageProperties.DELAY_TIME_LEVEL);
        if (level == null) {
            return c.tagsCode();
        }
        return delayLevels.deliverTimestamp(DelayLevels.levelOf(level), c.storeTimestamp());
    }

    private boolean dispatch(long offset, RecordCheck c, long tagsCode) {
        DispatchRequest r = new DispatchRequest(c.topic(), c.queueId(), offset, c.size(), tagsCode,
                c.storeTimestamp(), c.queueOffset(), c.keys(), c.uniqKey(), c.sysFlag());
        try {
            // a record of a deleted topic gets no entry: the topic created again starts empty
            if (r.goesToConsumeQueue() && !consumeQueues.deletedTopics().covers(r.topic(), offset)) {
                ConsumeQueue queue = consumeQueues.findOrCreate(r.topic(), r.queueId());
                ConsumeQueue.PutResult result = consumeQueues.append(queue, r);
                if (result == ConsumeQueue.PutResult.GAP) {
                    if (rewindForGap(queue, r)) {
                        return true;
                    }
                    queue.fillGapTo(r.consumeQueueOffset());
                    result = consumeQueues.append(queue, r);
                }
                if (result == ConsumeQueue.PutResult.APPENDED && listener != null) {
                    arrived.add(r);
                }
            }
            if (index != null) {
                index.buildIndex(r);
            }
        } catch (IOException e) {
            writeFailure = e;
            return false;
        }
        cursorStoreTimestamp = r.storeTimestamp();
        return true;
    }

    /**
     * The queue lacks entries before this record. Its missing records lie between the end of its last
     * entry and here; go back there once. Returns false if they are gone from the log (or this gap was
     * already rewound for once), so the caller fills the gap.
     */
    private boolean rewindForGap(ConsumeQueue queue, DispatchRequest r) {
        long back = Math.max(queue.writePhysicOffset(), source.minOffset());
        String key = r.topic() + "-" + r.queueId() + "@" + queue.writeOffset();
        if (back >= r.physicalOffset() || key.equals(lastRewind) || queue.writePhysicOffset() < source.minOffset()) {
            LOG.error("ConsumeQueue {}-{} misses logical offsets [{}, {}) whose records are not in the CommitLog; filling them with placeholders",
                    r.topic(), r.queueId(), queue.writeOffset(), r.consumeQueueOffset());
            return false;
        }
        lastRewind = key;
        rewindTo = back;
        LOG.warn("ConsumeQueue {}-{} ends at logical offset {} but the record at {} has {}: re-dispatching from {}",
                r.topic(), r.queueId(), queue.writeOffset(), r.physicalOffset(), r.consumeQueueOffset(), back);
        return true;
    }

    /**
     * Pauses dispatch after a failed entry or index write: goes back to the last published offset
     * (appends are idempotent; what was committed is skipped on the way), names the cause for the
     * store's refusal of puts, and schedules the retry with a doubling backoff.
     */
    private void blockWrites(IOException e) {
        long at = cursor;
        writeFailure = null;
        arrived.clear();
        rewindTo = -1;
        cursor = reputFromOffset;
        retryDelayMs = writeBlocked == null ? FIRST_RETRY_MS : Math.min(MAX_RETRY_MS, retryDelayMs * 2);
        nextRetryNs = System.nanoTime() + retryDelayMs * 1_000_000;
        writeBlockedRounds++;
        String reason = "dispatch cannot write ConsumeQueue entries or index keys at CommitLog offset " + at + ": " + e;
        if (writeBlocked == null) {
            LOG.error("[ALARM] {}. Puts are refused until it can write again; retrying.", reason);
        }
        writeBlocked = reason;
    }

    private void stop(long offset, String reason) {
        alarm = "dispatch stopped at CommitLog offset " + offset + ": " + reason;
        LOG.error("[ALARM] {}. Nothing after it reaches the ConsumeQueues until the log is repaired.", alarm);
    }
}
