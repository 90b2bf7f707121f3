package io.basalt.broker.schedule;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.broker.protocol.DataVersion;
import io.basalt.common.service.ErrorPolicy;
import io.basalt.common.service.ServiceThread;
import io.basalt.store.DelayLevels;
import io.basalt.store.MessageStore;

/**
 * Delay levels' delivery, RocketMQ's {@code ScheduleMessageService}: one {@link LevelDeliverer} per level of
 * {@code messageDelayLevel} puts due SCHEDULE_TOPIC_XXXX messages back into their real topics, pipelined, never
 * skipping a failed put; {@code config/delayOffset.json} keeps each level's next offset.
 *
 * <p><b>Roles.</b> Runs on the master only: {@link #start()} when the broker starts as master or a slave is
 * promoted (it reloads delayOffset.json, which a slave receives from its master), {@link #shutdown()} when the
 * broker stops. On a slave the table last loaded (or copied from the master) is what GET_ALL_DELAY_OFFSET and the
 * runtime info report.
 *
 * <p><b>Durability.</b> A change of an offset is written within {@value #PERSIST_DELAY_MS} ms (thread
 * {@code ScheduleMessagePersistThread}), the file is rewritten every {@code flushDelayOffsetInterval} anyway, and
 * once more at shutdown after the in-flight puts settled. A {@code kill -9} therefore re-delivers only what was
 * stored in the last ~100 ms plus what was in flight; it never loses a message nor delivers one early. At start
 * every stored offset is clamped into its queue's [min, max] and a correction is written at once.
 *
 * <p>{@link #start()}, {@link #shutdown()} and {@link #load()} are called by the broker's start, shutdown and
 * promotion (serialised here); the readers are thread-safe.
 */
public final class ScheduleMessageService {
    private static final Logger log = LoggerFactory.getLogger(ScheduleMessageService.class);
    /** Longest a changed offset waits to be written to delayOffset.json, ms. */
    public static final long PERSIST_DELAY_MS = 100;

    /** Told of every message put back into its real topic (delivery lateness). Called on a deliverer thread. */
    @FunctionalInterface
    public interface DeliveryObserver {
        void delivered(int level, long dueMillis, long storedMillis);
    }

    /** One level as the status page and metrics show it. */
    public record LevelStatus(int level, long delayMillis, long offset, long maxOffset, long backlog,
                              long oldestDueAgeMillis, long delivered, long putFailures, long skipped) {
    }

    private final MessageStore store;
    private final DelayLevels levels;
    private final DelayOffsetFile file;
    private final ScheduleSettings settings;
    private final BooleanSupplier writable;
    private final LongSupplier clock;
    private final Map<Integer, DeliveryCounters> counters = new LinkedHashMap<>();
    private final AtomicBoolean dirty = new AtomicBoolean();
    private volatile DeliveryObserver observer = (level, due, stored) -> { };
    private volatile DelayOffsetTable table;
    private volatile List<LevelDeliverer> deliverers = List.of();
    private Persister persister;
    private boolean started;

    /**
     * @param writable whether this broker takes writes now (a fenced master pauses delivery)
     */
    public ScheduleMessageService(MessageStore store, DelayLevels levels, DelayOffsetFile file, ScheduleSettings settings,
                                  BooleanSupplier writable, LongSupplier clock) {
        this.store = store;
        this.levels = levels;
        this.file = file;
        this.settings = settings;
        this.writable = writable;
        this.clock = clock;
        this.table = new DelayOffsetTable(settings.delayOffsetUpdateVersionStep(), new DataVersion(0, clock.getAsLong(), 0));
        for (int level = 1; level <= levels.maxLevel(); level++) {
            counters.put(level, new DeliveryCounters());
        }
    }

    public DelayLevels levels() {
        return levels;
    }

    public void setDeliveryObserver(DeliveryObserver observer) {
        this.observer = observer;
    }

    /**
     * Reads delayOffset.json (its .bak when it is corrupt).
     *
     * @throws IOException when the file and its backup are both corrupt: start-up stops, naming the file
     */
    public synchronized void load() throws IOException {
        table = file.load(settings.delayOffsetUpdateVersionStep())
            .orElseGet(() -> new DelayOffsetTable(settings.delayOffsetUpdateVersionStep(),
                new DataVersion(0, clock.getAsLong(), 0)));
    }

    /** Reloads delayOffset.json, clamps its offsets into their queues, starts a deliverer per level. */
    public synchronized void start() throws IOException {
        if (started) {
            return;
        }
        load();
        correctOffsets();
        List<LevelDeliverer> next = new ArrayList<>();
        LevelDeliverer.Listener listener = new LevelDeliverer.Listener() {
            @Override
            public void delivered(int level, long dueMillis, long storedMillis) {
                observer.delivered(level, dueMillis, storedMillis);
            }

            @Override
            public void progressed(int level) {
                dirty.set(true);
            }
        };
        for (int level = 1; level <= levels.maxLevel(); level++) {
            long offset = Math.max(0, table.offset(level));
            next.add(new LevelDeliverer(level, levels.delayMillis(level), offset, store, table,
                settings.maxPendingPerLevel(), writable, clock, listener, counters.get(level)));
        }
        persister = new Persister();
        persister.start();
        for (LevelDeliverer d : next) {
            d.start();
        }
        deliverers = List.copyOf(next);
        started = true;
        log.info("schedule service started: {} delay levels ({}), offsets {}", levels.maxLevel(), levels,
            table.snapshot());
    }

    /** Stops the deliverers (each settles its puts in flight), then writes delayOffset.json. Idempotent. */
    public synchronized void shutdown() {
        if (!started) {
            return;
        }
        started = false;
        for (LevelDeliverer d : deliverers) {
            d.shutdown();
        }
        deliverers = List.of();
        persister.shutdown();
        persist();
        log.info("schedule service stopped, offsets {}", table.snapshot());
    }

    public synchronized boolean isStarted() {
        return started;
    }

    /** A new SCHEDULE_TOPIC_XXXX entry in {@code queueId}: its level looks at it now, not at its next poll. */
    public void onArrival(int queueId) {
        int level = DelayLevels.level(queueId);
        for (LevelDeliverer d : deliverers) {
            if (d.level() == level) {
                d.wakeup();
            }
        }
    }

    /** Clamps every stored offset into [min, max] of its queue (RocketMQ's correctDelayOffset), written at once. */
    private void correctOffsets() throws IOException {
        boolean corrected = false;
        for (Map.Entry<Integer, Long> e : table.snapshot().entrySet()) {
            int queueId = DelayLevels.queueId(e.getKey());
            long min = store.getMinOffsetInQueue(DelayLevels.SCHEDULE_TOPIC, queueId);
            long max = store.getMaxOffsetInQueue(DelayLevels.SCHEDULE_TOPIC, queueId);
            long offset = e.getValue();
            long clamped = Math.max(min, Math.min(max, offset));
            if (clamped != offset) {
                log.error("correct delay offset of level {}: {} is outside the queue [{}, {}], now {}", e.getKey(),
                    offset, min, max, clamped);
                table.update(e.getKey(), clamped, clock.getAsLong());
                corrected = true;
            }
        }
        if (corrected) {
            file.store(table);
        }
    }

    /** Writes delayOffset.json now; a failure is logged and retried by the persister. */
    void persist() {
        try {
            file.store(table);
        } catch (IOException e) {
            dirty.set(true);
            log.error("writing {} failed: {}", file.path(), e.toString());
        }
    }

    /**
     * The GET_ALL_DELAY_OFFSET body (compact JSON), an empty {@code offsetTable} included: RocketMQ's running broker
     * always answers its table ({@code ScheduleMessageService.encode()}), and its slaves log an error at every sync
     * for anything else.
     */
    public byte[] delayOffsetBody() {
        return currentTable().encodeCompact();
    }

    /** GET_BROKER_RUNTIME_INFO's {@code scheduleMessageOffset_<level>} = "delayOffset,cqMaxOffset" per stored level. */
    public Map<String, String> runtimeInfo() {
        Map<String, String> info = new LinkedHashMap<>();
        SortedMap<Integer, Long> offsets = currentTable().snapshot();
        java.util.SortedSet<Integer> listed = new java.util.TreeSet<>(counters.keySet());
        listed.addAll(offsets.keySet());
        for (int level : listed) {
            int queueId = DelayLevels.queueId(level);
            long max = store.getMaxOffsetInQueue(DelayLevels.SCHEDULE_TOPIC, queueId);
            Long offset = offsets.get(level);
            // RocketMQ lists a level once its task has looked at the queue; a level with messages is listed
            // here even before its first delivery, so "offset,max" shows its backlog
            if (offset == null && max <= 0) {
                continue;
            }
            long from = offset != null ? offset : store.getMinOffsetInQueue(DelayLevels.SCHEDULE_TOPIC, queueId);
            info.put("scheduleMessageOffset_" + level, from + "," + max);
        }
        return info;
    }

    /** Every level of {@code messageDelayLevel}, as of now. */
    public List<LevelStatus> status() {
        SortedMap<Integer, Long> offsets = currentTable().snapshot();
        long now = clock.getAsLong();
        List<LevelStatus> result = new ArrayList<>();
        for (Map.Entry<Integer, DeliveryCounters> e : counters.entrySet()) {
            int level = e.getKey();
            DeliveryCounters c = e.getValue();
            long max = store.getMaxOffsetInQueue(DelayLevels.SCHEDULE_TOPIC, DelayLevels.queueId(level));
            long min = store.getMinOffsetInQueue(DelayLevels.SCHEDULE_TOPIC, DelayLevels.queueId(level));
            long offset = Math.max(min, offsets.getOrDefault(level, 0L));
            long oldest = c.oldestDueMs;
            result.add(new LevelStatus(level, levels.delayMillis(level), offset, max, Math.max(0, max - offset),
                started && oldest > 0 ? Math.max(0, now - oldest) : 0, c.delivered.sum(), c.putFailures.sum(),
                c.skipped.sum()));
        }
        return result;
    }

    /** On a slave (not started) the file as the master last sent it; on the master the live table. */
    private DelayOffsetTable currentTable() {
        if (isStarted()) {
            return table;
        }
        try {
            return file.load(settings.delayOffsetUpdateVersionStep()).orElse(table);
        } catch (IOException e) {
            log.warn("reading {} failed: {}", file.path(), e.toString());
            return table;
        }
    }

    /** Writes delayOffset.json within {@value #PERSIST_DELAY_MS} ms of a change, and every flushDelayOffsetInterval. */
    private final class Persister extends ServiceThread {
        private long lastWriteMs = clock.getAsLong();

        Persister() {
            super("ScheduleMessagePersistThread", ErrorPolicy.resilient());
        }

        @Override
        protected int doWork() {
            long now = clock.getAsLong();
            if (dirty.getAndSet(false) || now - lastWriteMs >= settings.flushDelayOffsetInterval()) {
                lastWriteMs = now;
                persist();
                return 1;
            }
            return 0;
        }

        @Override
        protected long idleWaitMs() {
            return PERSIST_DELAY_MS;
        }

        @Override
        protected boolean waitsAfterEveryRound() {
            return true;
        }
    }
}
