package io.basalt.store.timer;

import io.basalt.common.service.ErrorPolicy;
import io.basalt.common.service.ServiceThread;
import io.basalt.store.MessageProperties;
import io.basalt.store.PutMessageTransform;
import io.basalt.store.StoreConfig;
import io.basalt.store.StoredMessage;
import io.basalt.store.TimerMessages;
import io.basalt.store.queue.ConsumeQueueEntry;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timer wheel, on RocketMQ 5.2.0's files ({@code timerwheel}, {@code timerlog/}, {@code config/timercheck},
 * {@code config/timermetrics}): {@link TimerPutTransform} sends timer messages to {@code rmq_sys_wheel_timer};
 * the enqueue service moves that queue's entries into the wheel (one timer-log unit per queue offset, in
 * order, never twice); the dequeue service walks the due slots and has {@link TimerDelivery} put their
 * messages back, pipelined; the flush service writes the checkpoint. See the README's "Timer messages".
 *
 * <p><b>Threads.</b> {@code TimerEnqueueGetService} alone appends to the log, writes slots and moves the
 * write clock; {@code TimerDequeueGetService} alone moves the read clock (the broker's role change may
 * reset it while dequeue is off); {@code TimerFlushService} alone writes the checkpoint and metrics files.
 * A slot is only written while its time is at or after the write clock and only read once the write clock
 * passed it, so the two never touch the same slot. Lifecycle calls come from the store.
 */
public final class TimerMessageStore implements TimerMessages {
    private static final Logger LOG = LoggerFactory.getLogger(TimerMessageStore.class);
    private static final int ENQUEUE_BATCH = 1024;
    private static final int READ_ATTEMPTS = 3;
    private static final long CLEAN_INTERVAL_MS = 30_000;
    private static final int[] PRECISIONS = {100, 200, 500, 1000};

    private final StoreConfig config;
    private final TimerStoreAccess store;
    private final long precisionMs;
    private final long rollWindowMs;
    private final Path root;
    private final TimerCheckpoint checkpointFile;
    private final TimerMetrics metrics;
    /** The put transform before the wheel is loaded (no flow control), then {@link #transformWheel}. */
    private final TimerPutTransform transform;
    private volatile TimerPutTransform transformWheel;
    private volatile DeliveryListener listener;
    private TimerWheel wheel;
    private TimerLog log;
    private TimerDelivery delivery;
    private EnqueueService enqueueService;
    private DequeueService dequeueService;
    private FlushService flushService;

    /** Next rmq_sys_wheel_timer offset to enqueue (enqueue thread). */
    private volatile long currQueueOffset;
    /** Offsets handed straight to delivery and not yet settled: the checkpoint's queue offset stays below them. */
    private final ConcurrentSkipListSet<Long> directPending = new ConcurrentSkipListSet<>();
    private volatile long currWriteTimeMs;
    private volatile long currReadTimeMs;
    private volatile long masterTimerQueueOffset;
    private volatile long masterReadTimeMs;
    private volatile boolean masterCheckpointApplied;
    private volatile boolean dequeueEnabled;
    /** Bumped on every dequeue switch: a slot read across a switch is read again. */
    private final AtomicLong dequeueEpoch = new AtomicLong();
    private volatile long shouldStartDequeueMs;
    private volatile boolean running;
    private volatile byte[] lastCheckpoint = TimerCheckpoint.Values.NONE.body();
    /** Guards the checkpoint's version fields and serializes checkpoint writes (never held while waiting for a thread). */
    private final Object checkpointLock = new Object();
    private long stateVersion;
    private long versionTimestamp;
    private long versionCounter;
    private long lastFlushQueueOffset = -1;
    private long lastFlushReadTime = -1;
    /**
     * After recovery (or a cut of rmq_sys_wheel_timer): units below this log offset whose record is at or past
     * this CommitLog offset are dangling; records written later at those offsets are others. Enqueue thread
     * writes (recovery before it starts); the dequeue readers read.
     */
    private volatile long logEndAtRecovery;
    private volatile long commitLogEndAtRecovery = Long.MAX_VALUE;

    private final AtomicLong enqueued = new AtomicLong();
    private final AtomicLong cancelled = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final RateMeter enqueueRate = new RateMeter();
    private final RateMeter dequeueRate = new RateMeter();
    private volatile long congestCache;
    /** When congestNum was last computed; 0 (not Long.MIN_VALUE: {@code now - MIN_VALUE} overflows) = never. */
    private volatile long congestCacheAt = 0;

    public TimerMessageStore(StoreConfig config, TimerStoreAccess store) {
        this.config = config;
        this.store = store;
        this.precisionMs = config.timerPrecisionMs();
        this.rollWindowMs = (long) config.timerRollWindowSlot() * precisionMs;
        this.root = config.rootDir();
        this.checkpointFile = new TimerCheckpoint(root.resolve("config").resolve("timercheck"));
        this.metrics = new TimerMetrics(root.resolve("config").resolve("timermetrics"), store::nowMs);
        this.transform = new TimerPutTransform(true, config.timerPrecisionMs(), config.timerMaxDelaySec(),
            config.timerCongestNumEachSlot(), null, store::nowMs);
    }

    // ---- lifecycle --------------------------------------------------------------------------------

    /**
     * Opens the files and recovers (at every start): refuses a precision other than the wheel's, re-links
     * slots from the log, cuts a torn log tail, and places the enqueue and read positions. Called by the
     * store's load() after the CommitLog and queues are recovered.
     */
    public synchronized void load() throws IOException {
        TimerCheckpoint.Values cp = checkpointFile.read();
        Path wheelFile = root.resolve("timerwheel");
        boolean wheelExisted = Files.exists(wheelFile);
        wheel = TimerWheel.open(wheelFile, precisionMs);
        try {
            if (wheelExisted) {
                checkPrecision(cp);
            }
            transformWheel = new TimerPutTransform(true, config.timerPrecisionMs(), config.timerMaxDelaySec(),
                config.timerCongestNumEachSlot(), wheel, store::nowMs);
            metrics.load();
            log = new TimerLog(root.resolve("timerlog"), config.mappedFileSizeTimerLog());
            log.load();
            recover(cp);
            try {
                flushCheckpoint();
            } catch (IOException e) {
                // A full disk must not stop start-up: the files on disk still describe a state recovery
                // can start from (as after a crash before this write), and the flush service retries.
                LOG.warn("Timer checkpoint after recovery not written ({}); the flush service retries it", e.toString());
            }
            delivery = new TimerDelivery(store, precisionMs, config.timerSkipUnknownError(),
                config.timerGetMessageThreadNum(), config.timerPutMessageThreadNum(), metrics);
            delivery.setListener(listener);
        } catch (IOException | RuntimeException e) {
            closeFiles();
            throw e;
        }
    }

    private void checkPrecision(TimerCheckpoint.Values cp) throws IOException {
        int recorded = cp.precisionMs();
        String source = "recorded in " + checkpointFile.file();
        if (recorded == 0) {
            long units = wheel.firstStoredUnits();
            if (units <= 0) {
                return;
            }
            long reference = cp.lastReadTimeMs() > 0 ? cp.lastReadTimeMs() : store.nowMs();
            long best = Long.MAX_VALUE;
            for (int p : PRECISIONS) {
                long distance = Math.abs(units * p - reference);
                if (distance < best && distance <= 30L * 86_400_000) {
                    best = distance;
                    recorded = p;
                }
            }
            source = "inferred from the slot times in " + wheel.file();
        }
        if (recorded != 0 && recorded != precisionMs) {
            throw new IOException("timerPrecisionMs=" + precisionMs + " but the timer wheel in " + root
                + " was written with timerPrecisionMs=" + recorded + " (" + source + "): with another precision every"
                + " pending timer would be lost. Set timerPrecisionMs=" + recorded + " again; to change it, first let the"
                + " pending timers be delivered, then remove timerwheel, timerlog/ and config/timercheck");
        }
    }

    private void recover(TimerCheckpoint.Values cp) throws IOException {
        long scanFrom = Math.max(0, cp.lastTimerLogFlushPos() - log.fileSize());
        ArrayDeque<TimerLog.Unit> lastUnits = new ArrayDeque<>();
        long[] danglingCount = {0};
        long[] earliestSlot = {Long.MAX_VALUE};
        long commitLogEnd = store.commitLogMaxOffset();
        TimerLog.UnitVisitor relink = u -> {
            relink(u);
            earliestSlot[0] = Math.min(earliestSlot[0], u.slotTimeMs());
            lastUnits.addLast(u);
            if (lastUnits.size() > 64) {
                lastUnits.removeFirst();
            }
            if (u.commitLogOffset() >= commitLogEnd) {
                danglingCount[0]++;
            }
        };
        long appended = log.appendedOffset();
        long end = log.scan(scanFrom, relink);
        if (end < appended && log.fileCount() > 0) {
            LOG.warn("Timer log {} is valid up to offset {}; the torn tail after it is cut", root.resolve("timerlog"), end);
        }
        long[] rescanFrom = {Long.MAX_VALUE};
        List<Long> broken = new ArrayList<>();
        wheel.forEachSlot((slot, units) -> {
            if (slot.lastPos() >= end) {
                broken.add(slot.timeMs());
                if (slot.firstPos() < end) {
                    rescanFrom[0] = Math.min(rescanFrom[0], slot.firstPos());
                }
            }
        });
        for (long t : broken) {
            wheel.clearSlot(t);
        }
        if (!broken.isEmpty()) {
            LOG.warn("{} timer wheel slots pointed past the timer log's end {}; re-linked from the log", broken.size(), end);
            // the cleared slots' valid units are linked again from the first of them on (the first scan
            // skipped them: their slot then still ended past the log's end)
            if (rescanFrom[0] != Long.MAX_VALUE) {
                log.scan(rescanFrom[0], this::relink);
            }
        }
        // only now: cutting the log first would make the files' readable end the cut, and the rescan see nothing
        log.resumeAt(end);
        if (danglingCount[0] > 0) {
            LOG.warn("{} timer-log units point at or past the CommitLog's end {}: their records are gone; they are "
                + "dropped and counted when their slot comes", danglingCount[0], commitLogEnd);
        }
        logEndAtRecovery = end;
        commitLogEndAtRecovery = commitLogEnd;
        long resume = cp.lastTimerQueueOffset();
        while (!lastUnits.isEmpty()) {
            TimerLog.Unit u = lastUnits.removeLast();
            StoredMessage r = readTimerRecord(u.commitLogOffset(), u.recordSize());
            if (r != null) {
                resume = Math.max(resume, r.queueOffset() + 1);
                break;
            }
        }
        resume = Math.min(resume, store.wheelQueueMaxOffset());
        resume = Math.max(resume, store.wheelQueueMinOffset());
        currQueueOffset = resume;
        masterTimerQueueOffset = cp.masterTimerQueueOffset();
        stateVersion = cp.stateVersion();
        versionTimestamp = cp.timestamp();
        versionCounter = cp.counter();
        long now = floor(store.nowMs());
        currWriteTimeMs = now;
        // no read time (a zeroed or lost timercheck): from the earliest slot the log holds, so that slots which
        // fell due while the broker was down are delivered (again, at least once), not skipped
        currReadTimeMs = cp.lastReadTimeMs() > 0 ? cp.lastReadTimeMs() : Math.min(now, floor(earliestSlot[0]));
        LOG.info("Timer wheel recovered: log end {}, enqueue from rmq_sys_wheel_timer offset {}, read time {} ({} ms behind)",
            end, resume, currReadTimeMs, Math.max(0, store.nowMs() - currReadTimeMs));
    }

    /** Recovery: makes the unit's slot end at it (unless the slot already reaches further). */
    private void relink(TimerLog.Unit u) {
        long t = u.slotTimeMs();
        int delta = TimerConstants.isDelete(u.magic()) && !TimerConstants.isRoll(u.magic()) ? -1 : 1;
        TimerWheel.Slot s = wheel.slot(t);
        if (s.isEmpty()) {
            wheel.putSlot(t, u.pos(), u.pos(), delta, 0);
        } else if (u.pos() > s.lastPos()) {
            wheel.putSlot(t, s.firstPos(), u.pos(), s.num() + delta, s.magic());
        }
    }

    /** Starts the enqueue, dequeue and flush services. */
    public synchronized void start() {
        running = true;
        long disappear = config.disappearTimeAfterStart();
        shouldStartDequeueMs = disappear > 0 ? store.nowMs() + disappear : Long.MIN_VALUE;
        enqueueService = new EnqueueService();
        dequeueService = new DequeueService();
        flushService = new FlushService();
        enqueueService.start();
        dequeueService.start();
        flushService.start();
    }

    /**
     * Stops the services (in-flight puts settle or are abandoned for re-delivery), writes the checkpoint
     * once more and unmaps the files. Called by the store before it stops accepting puts. Idempotent.
     */
    public synchronized void shutdown() {
        running = false;
        if (enqueueService != null) {
            enqueueService.shutdown();
            dequeueService.shutdown();
            flushService.shutdown();
        }
        if (delivery != null) {
            delivery.shutdown(5_000);
        }
        if (wheel != null && log != null) {
            try {
                flushCheckpoint();
            } catch (IOException | RuntimeException e) {
                LOG.error("Timer checkpoint flush at shutdown failed; the next start re-enqueues and re-delivers more", e);
            }
        }
        closeFiles();
    }

    private void closeFiles() {
        if (log != null) {
            log.close();
            log = null;
        }
        if (wheel != null) {
            try {
                wheel.close();
            } catch (IOException e) {
                LOG.warn("Closing the timer wheel failed", e);
            }
            wheel = null;
        }
    }

    /** Wakes the enqueue service: an entry arrived in rmq_sys_wheel_timer. Dispatcher thread. */
    public void onArrival() {
        EnqueueService s = enqueueService;
        if (s != null) {
            s.wakeup();
        }
    }

    // ---- facade -----------------------------------------------------------------------------------

    @Override
    public boolean enabled() {
        return true;
    }

    /** The put transform: flow control reads this wheel once it is loaded. */
    @Override
    public PutMessageTransform putTransform() {
        return message -> {
            TimerPutTransform t = transformWheel;
            return (t != null ? t : transform).apply(message);
        };
    }

    @Override
    public void setDequeueEnabled(boolean enabled) {
        if (enabled == dequeueEnabled) {
            return;
        }
        if (enabled && masterCheckpointApplied && masterReadTimeMs > 0) {
            // a promoted slave delivers from where the master had delivered everything
            currReadTimeMs = masterReadTimeMs;
        }
        dequeueEpoch.incrementAndGet();
        dequeueEnabled = enabled;
        LOG.info("Timer wheel delivery {}{}", enabled ? "started" : "stopped",
            enabled ? " from read time " + currReadTimeMs : "");
        DequeueService d = dequeueService;
        if (d != null) {
            d.wakeup();
        }
        EnqueueService e = enqueueService;
        if (e != null) {
            e.wakeup();
        }
    }

    @Override
    public boolean dequeueEnabled() {
        return dequeueEnabled;
    }

    @Override
    public byte[] checkpoint() {
        return lastCheckpoint.clone();
    }

    @Override
    public void applyMasterCheckpoint(byte[] body) {
        TimerCheckpoint.Values v = TimerCheckpoint.Values.parse(body);
        masterReadTimeMs = v.lastReadTimeMs();
        masterTimerQueueOffset = v.masterTimerQueueOffset();
        synchronized (checkpointLock) {
            stateVersion = v.stateVersion();
            versionTimestamp = v.timestamp();
            versionCounter = v.counter();
        }
        masterCheckpointApplied = true;
        EnqueueService e = enqueueService;
        if (e != null) {
            e.wakeup();
        }
    }

    @Override
    public String metricsJson() {
        return metrics.toJson();
    }

    @Override
    public Stats stats() {
        long now = store.nowMs();
        long lag = Math.max(0, store.wheelQueueMaxOffset() - currQueueOffset);
        long lagMillis = 0;
        if (lag > 0) {
            long ts = store.wheelQueueStoreTimestamp(currQueueOffset);
            lagMillis = ts > 0 ? Math.max(0, now - ts) : 0;
        }
        return new Stats(metrics.total(), lag, lagMillis, Math.max(0, now - currReadTimeMs), congestNum(now),
            enqueueRate.rate(enqueued.get(), now), dequeueRate.rate(delivery == null ? 0 : delivery.delivered(), now),
            enqueued.get(), delivery == null ? 0 : delivery.delivered(), cancelled.get(),
            dropped.get() + (delivery == null ? 0 : delivery.setAside()));
    }

    @Override
    public long dequeueLagMillis() {
        return Math.max(0, store.nowMs() - currReadTimeMs);
    }

    /** Sum of the slot counts from the read time on; scanning the wheel at most once a second. */
    private long congestNum(long now) {
        if (now - congestCacheAt < 1000) {
            return congestCache;
        }
        TimerWheel w = wheel;
        if (w == null) {
            return 0;
        }
        long from = currReadTimeMs;
        long[] sum = {0};
        w.forEachSlot((slot, units) -> {
            if (slot.timeMs() >= from && slot.num() > 0) {
                sum[0] += slot.num();
            }
        });
        congestCache = sum[0];
        congestCacheAt = now;
        return sum[0];
    }

    @Override
    public void setDeliveryListener(DeliveryListener listener) {
        this.listener = listener;
        TimerDelivery d = delivery;
        if (d != null) {
            d.setListener(listener);
        }
    }

    /** The next rmq_sys_wheel_timer offset to enqueue (tests, status). */
    public long currQueueOffset() {
        return currQueueOffset;
    }

    /** The first slot time not yet completely delivered. */
    public long currReadTimeMs() {
        return currReadTimeMs;
    }

    // ---- enqueue ----------------------------------------------------------------------------------

    private long floor(long ms) {
        return ms / precisionMs * precisionMs;
    }

    private boolean dequeueRunning() {
        return dequeueEnabled && running && !config.timerStopDequeue() && store.nowMs() >= shouldStartDequeueMs;
    }

    /** One enqueue round: moves the write clock, then up to a batch of entries into the wheel. Enqueue thread. */
    int enqueueRound() throws IOException {
        long now = floor(store.nowMs());
        if (now > currWriteTimeMs) {
            currWriteTimeMs = now;
            DequeueService d = dequeueService;
            if (d != null) {
                d.wakeup();
            }
        }
        if (config.timerStopEnqueue()) {
            return 0;
        }
        long limit = store.wheelQueueMaxOffset();
        if (currQueueOffset > limit) {
            // rmq_sys_wheel_timer was cut back (a slave truncated to its new master): the entries from there on
            // are new records; units already in the log that point into the cut part are dangling
            LOG.warn("rmq_sys_wheel_timer ends at {} below the enqueue position {}: enqueue resumes there", limit,
                currQueueOffset);
            markDanglingFrom(store.commitLogMaxOffset());
            currQueueOffset = limit;
        }
        if (!dequeueEnabled) {
            limit = Math.min(limit, masterTimerQueueOffset);
        }
        long offset = Math.max(currQueueOffset, store.wheelQueueMinOffset());
        // the wheel keeps 2 × 7 days of slots: never write a slot so far ahead of the read clock that it would
        // overwrite one not yet delivered (after a long downtime the read clock first catches up)
        long span = (long) TimerWheel.SLOTS * precisionMs;
        if (dequeueEnabled && currWriteTimeMs + rollWindowMs - currReadTimeMs > span - 2 * precisionMs) {
            currQueueOffset = offset;
            return 0;
        }
        int done = 0;
        while (offset < limit && done < ENQUEUE_BATCH && running) {
            ConsumeQueueEntry entry = store.wheelQueueEntry(offset);
            if (entry == null) {
                break;
            }
            if (!entry.isPlaceholder()) {
                enqueueEntry(offset, entry);
            }
            offset++;
            currQueueOffset = offset;
            done++;
        }
        if (done > 0) {
            enqueueRate.sample(enqueued.get(), store.nowMs());
        }
        return done;
    }

    private void enqueueEntry(long offset, ConsumeQueueEntry entry) throws IOException {
        StoredMessage record = null;
        int attempts = config.timerSkipUnknownError() ? 1 : READ_ATTEMPTS;
        for (int i = 0; i < attempts && record == null; i++) {
            record = readTimerRecord(entry.physicalOffset(), entry.size());
        }
        if (record == null) {
            dropped.incrementAndGet();
            LOG.error("rmq_sys_wheel_timer offset {}: no readable timer record at CommitLog offset {}; dropped",
                offset, entry.physicalOffset());
            return;
        }
        var props = record.propertyMap();
        long outMs;
        try {
            outMs = Long.parseLong(props.get(TimerConstants.TIMER_OUT_MS));
        } catch (RuntimeException e) {
            dropped.incrementAndGet();
            LOG.error("rmq_sys_wheel_timer offset {} (CommitLog offset {}) has no valid TIMER_OUT_MS; dropped", offset,
                entry.physicalOffset());
            return;
        }
        String realTopic = props.get(TimerConstants.REAL_TOPIC);
        boolean cancel = props.containsKey(TimerConstants.TIMER_DEL_UNIQKEY);
        if (outMs < currWriteTimeMs && dequeueRunning()) {
            if (cancel) {
                return;   // a cancel whose time has come is never stored (its target is due too)
            }
            directPending.add(offset);
            delivery.deliver(new TimerDelivery.Item(record, Long.MAX_VALUE, false), this::deliveryMayGoOn)
                .whenComplete((settled, e) -> directPending.remove(offset));
            return;
        }
        int magic = TimerConstants.MAGIC_DEFAULT | (cancel ? TimerConstants.MAGIC_DELETE : 0);
        long write = currWriteTimeMs;
        long delayed = outMs;
        if (delayed - write >= rollWindowMs) {
            magic |= TimerConstants.MAGIC_ROLL;
            long window = config.timerRollWindowSlot();
            delayed = delayed - write - rollWindowMs < window / 3 * precisionMs
                ? write + window / 2 * precisionMs : write + rollWindowMs;
        }
        delayed = Math.max(delayed, write + Integer.MIN_VALUE);
        TimerWheel.Slot slot = wheel.slot(delayed);
        long pos = log.append(slot.lastPos(), magic, write, (int) (delayed - write), entry.physicalOffset(), entry.size(),
            realTopic == null ? 0 : realTopic.hashCode());
        boolean liveCancel = cancel && !TimerConstants.isRoll(magic);
        wheel.putSlot(delayed, slot.isEmpty() ? pos : slot.firstPos(), pos, liveCancel ? slot.num() - 1 : slot.num() + 1,
            slot.magic());
        metrics.add(realTopic, liveCancel ? -1 : 1);
        enqueued.incrementAndGet();
    }

    /** Units now in the log that point at or past {@code commitLogEnd} are dangling (their records were cut). */
    private void markDanglingFrom(long commitLogEnd) {
        logEndAtRecovery = log.appendedOffset();
        commitLogEndAtRecovery = commitLogEnd;
    }

    /** The rmq_sys_wheel_timer record at {@code offset} of {@code size} bytes, or null when it is not there. */
    private StoredMessage readTimerRecord(long offset, int size) {
        if (offset < store.commitLogMinOffset() || offset + size > store.commitLogMaxOffset()) {
            return null;
        }
        StoredMessage r;
        try {
            r = store.read(offset);
        } catch (RuntimeException e) {
            return null;
        }
        if (r == null || r.storeSize() != size || !TimerConstants.TIMER_TOPIC.equals(r.topic())) {
            return null;
        }
        return r;
    }

    // ---- dequeue ----------------------------------------------------------------------------------

    private boolean deliveryMayGoOn() {
        return running && dequeueEnabled && !config.timerStopDequeue();
    }

    /** One dequeue round: the slot at the read clock, if the write clock passed it. Dequeue thread. */
    int dequeueRound() throws InterruptedException {
        if (!dequeueRunning()) {
            return 0;
        }
        long read = currReadTimeMs;
        if (read >= currWriteTimeMs) {
            return 0;
        }
        long epoch = dequeueEpoch.get();
        TimerWheel.Slot slot = wheel.slot(read);
        if (slot.isEmpty()) {
            advanceRead(read, epoch);
            return 1;
        }
        List<TimerLog.Unit> units = chain(slot, read);
        Set<String> cancelKeys = new HashSet<>();
        List<TimerLog.Unit> normal = new ArrayList<>(units.size());
        for (TimerLog.Unit u : units) {
            if (TimerConstants.isDelete(u.magic()) && !TimerConstants.isRoll(u.magic())) {
                StoredMessage r = readUnitRecord(u);
                String key = r == null ? null : r.propertyMap().get(TimerConstants.TIMER_DEL_UNIQKEY);
                if (key != null) {
                    cancelKeys.add(key);
                }
            } else {
                normal.add(u);
            }
        }
        List<CompletableFuture<Boolean>> settled = new ArrayList<>();
        int threads = Math.max(1, config.timerGetMessageThreadNum());
        int chunk = Math.max(64, Math.min(2000, (normal.size() + threads - 1) / threads));
        for (int from = 0; from < normal.size(); from += chunk) {
            List<TimerLog.Unit> part = normal.subList(from, Math.min(normal.size(), from + chunk));
            CompletableFuture<Boolean> done = CompletableFuture.supplyAsync(() -> deliverAll(part, cancelKeys),
                delivery.readers()).thenCompose(f -> f);
            settled.add(done);
        }
        boolean complete = true;
        for (CompletableFuture<Boolean> f : settled) {
            try {
                complete &= f.get();
            } catch (java.util.concurrent.ExecutionException e) {
                LOG.error("Delivering timer slot {} failed", read, e.getCause());
                complete = false;
            }
        }
        if (complete) {
            advanceRead(read, epoch);
        }
        dequeueRate.sample(delivery.delivered(), store.nowMs());
        return units.size();
    }

    private void advanceRead(long read, long epoch) {
        if (dequeueEpoch.get() == epoch && currReadTimeMs == read) {
            currReadTimeMs = read + precisionMs;
        }
    }

    /** The slot's units in enqueue order (the log links them newest first). */
    private List<TimerLog.Unit> chain(TimerWheel.Slot slot, long slotTime) {
        ArrayList<TimerLog.Unit> units = new ArrayList<>();
        long pos = slot.lastPos();
        while (pos >= 0) {
            TimerLog.Unit u = log.read(pos);
            if (u == null) {
                break;
            }
            if (u.slotTimeMs() == slotTime) {
                units.add(u);
            }
            if (u.prevPos() >= pos) {
                break;
            }
            pos = u.prevPos();
        }
        java.util.Collections.reverse(units);
        return units;
    }

    /** The unit's record, or null (counted as dropped) when it is gone: below the CommitLog or dangling after recovery. */
    private StoredMessage readUnitRecord(TimerLog.Unit u) {
        if (u.pos() < logEndAtRecovery && u.commitLogOffset() >= commitLogEndAtRecovery) {
            return null;
        }
        return readTimerRecord(u.commitLogOffset(), u.recordSize());
    }

    /** Reader thread: converts and puts {@code units}; completes true once all settled. */
    private CompletableFuture<Boolean> deliverAll(List<TimerLog.Unit> units, Set<String> cancelKeys) {
        List<CompletableFuture<Boolean>> puts = new ArrayList<>(units.size());
        for (TimerLog.Unit u : units) {
            if (!deliveryMayGoOn()) {
                return CompletableFuture.completedFuture(false);
            }
            StoredMessage r = readUnitRecord(u);
            if (r == null) {
                dropped.incrementAndGet();
                metrics.addByTopicHash(u.topicHash(), -1);
                LOG.warn("Timer-log unit {} points at CommitLog offset {} where its record is gone; dropped", u.pos(),
                    u.commitLogOffset());
                continue;
            }
            boolean roll = TimerConstants.isRoll(u.magic());
            TimerDelivery.Item item = new TimerDelivery.Item(r, u.writeTimeMs(), roll);
            String uniqKey = cancelKeys.isEmpty() ? null : item.properties().get(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX);
            if (!roll && uniqKey != null && cancelKeys.contains(uniqKey)) {
                cancelled.incrementAndGet();
                continue;
            }
            puts.add(delivery.deliver(item, this::deliveryMayGoOn));
        }
        return CompletableFuture.allOf(puts.toArray(new CompletableFuture[0])).thenApply(v -> {
            for (CompletableFuture<Boolean> p : puts) {
                if (!p.join()) {
                    return false;
                }
            }
            return true;
        });
    }

    // ---- checkpoint -------------------------------------------------------------------------------

    /** Flushes log and wheel, then writes timercheck and timermetrics. Flush thread (and load/shutdown). */
    void flushCheckpoint() throws IOException {
        synchronized (checkpointLock) {
            writeCheckpoint();
        }
    }

    private void writeCheckpoint() throws IOException {
        long queueOffset = currQueueOffset;
        Long pending = directPending.isEmpty() ? null : directPending.first();
        if (pending != null) {
            queueOffset = Math.min(queueOffset, pending);
        }
        long readTime = currReadTimeMs;
        if (dequeueEnabled) {
            masterTimerQueueOffset = queueOffset;
        }
        if (queueOffset != lastFlushQueueOffset || readTime != lastFlushReadTime) {
            versionCounter++;
            versionTimestamp = store.nowMs();
            lastFlushQueueOffset = queueOffset;
            lastFlushReadTime = readTime;
        }
        long flushPos = log.flush();
        wheel.flush();
        TimerCheckpoint.Values v = new TimerCheckpoint.Values(readTime, flushPos,
            Math.min(queueOffset, masterTimerQueueOffset), masterTimerQueueOffset, stateVersion, versionTimestamp, versionCounter, (int) precisionMs);
        checkpointFile.write(v, (int) precisionMs);
        lastCheckpoint = v.body();
        metrics.persist();
    }

    // ---- services ---------------------------------------------------------------------------------

    private final class EnqueueService extends ServiceThread {
        EnqueueService() {
            super("TimerEnqueueGetService", ErrorPolicy.resilient());
        }

        @Override
        protected int doWork() throws Exception {
            return enqueueRound();
        }

        @Override
        protected long idleWaitMs() {
            long now = store.nowMs();
            long untilNextSlot = floor(now) + precisionMs - now;
            return Math.max(1, Math.min(untilNextSlot + 1, Math.max(10, 100 * precisionMs / 1000)));
        }
    }

    private final class DequeueService extends ServiceThread {
        DequeueService() {
            super("TimerDequeueGetService", ErrorPolicy.resilient());
        }

        @Override
        protected int doWork() throws Exception {
            return dequeueRound();
        }

        @Override
        protected long idleWaitMs() {
            return Math.max(10, 100 * precisionMs / 1000);
        }
    }

    private final class FlushService extends ServiceThread {
        private long lastClean;
        private long lastProgressLog;

        FlushService() {
            super("TimerFlushService", ErrorPolicy.resilient());
        }

        @Override
        protected int doWork() throws Exception {
            flushCheckpoint();
            long now = store.nowMs();
            if (now - lastClean >= CLEAN_INTERVAL_MS) {
                lastClean = now;
                log.deleteFilesBelow(store.commitLogMinOffset());
            }
            if (now - lastProgressLog >= config.timerProgressLogIntervalMs()) {
                lastProgressLog = now;
                // not stats(): its congestion figure walks every slot of the wheel, which this line does not print
                LOG.info("Timer progress-check: enqueue offset {} (behind {}), read time {} (behind {} ms), write time {},"
                    + " pending {}", currQueueOffset, Math.max(0, store.wheelQueueMaxOffset() - currQueueOffset),
                    currReadTimeMs, dequeueLagMillis(), currWriteTimeMs, metrics.total());
            }
            return 1;
        }

        @Override
        protected long idleWaitMs() {
            return config.timerFlushIntervalMs();
        }

        @Override
        protected boolean waitsAfterEveryRound() {
            return true;
        }
    }
}
