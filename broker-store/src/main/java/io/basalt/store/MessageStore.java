package io.basalt.store;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;

import io.basalt.common.service.ErrorPolicy;
import io.basalt.common.service.ServiceThread;

import io.basalt.common.io.Closeables;
import io.basalt.store.commitlog.CommitLog;
import io.basalt.store.spi.ReplicaAppend;
import io.basalt.store.spi.ReplicatedLog;
import io.basalt.store.commitlog.MessageRecordDecoder;
import io.basalt.store.commitlog.OffsetMessageId;
import io.basalt.store.commitlog.RecordCheck;
import io.basalt.store.commitlog.RecordFormat;
import io.basalt.store.flush.FailStop;
import io.basalt.store.flush.FaultInjectingFlushTarget;
import io.basalt.store.flush.FlushTarget;
import io.basalt.store.index.IndexService;
import io.basalt.store.index.QueryOffsetResult;
import io.basalt.store.queue.ConsumeQueue;
import io.basalt.store.queue.ConsumeQueueEntry;
import io.basalt.store.queue.ConsumeQueueStore;
import io.basalt.store.queue.DispatchSource;
import io.basalt.store.queue.FlushConsumeQueueService;
import io.basalt.store.queue.DispatchGate;
import io.basalt.store.queue.ReputMessageService;
import io.basalt.store.recovery.AbortMarker;
import io.basalt.store.recovery.ConsumeQueueRecovery;
import io.basalt.store.recovery.QueueTailsSeen;
import io.basalt.store.recovery.StoreCheckpoint;
import io.basalt.store.retention.DiskSpaceMonitor;
import io.basalt.store.retention.RetentionPolicy;
import io.basalt.store.timer.TimerConstants;
import io.basalt.store.timer.TimerMessageStore;
import io.basalt.store.timer.TimerStoreAccess;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The message store: RocketMQ's DefaultMessageStore for Basalt. Puts go to the {@link CommitLog}; the
 * dispatcher ({@link ReputMessageService}) builds the ConsumeQueues and the index from it; reads
 * come back as zero-copy slices of the CommitLog files; a cleaning service applies retention and a
 * disk watch makes puts fail fast when the disk is too full, while reads go on.
 *
 * <p><b>Visibility.</b> Under SYNC_FLUSH only what force() made durable is dispatched, so consumers
 * never read a message a crash could take back; under ASYNC_FLUSH whatever is readable in the page
 * cache is dispatched (see {@link ReputMessageService}).
 *
 * <p><b>The store's own files.</b> The {@code checkpoint} and the {@code abort} marker describe the
 * whole store, so the store owns them (one writer per file): it opens the checkpoint and hands it to the
 * CommitLog (recovery point) and the queue flusher (timestamps), creates the marker once the CommitLog
 * is recovered, and writes the checkpoint and removes the marker last at shutdown. It also owns the
 * {@link FailStop} latch: an I/O error on the write path, or an unexpected error of a
 * durability-critical service (group commit, flush, commit, dispatch, HA's replica wait), turns the
 * store read-only; puts then get SERVICE_NOT_AVAILABLE and waiting ones fail.
 *
 * <p><b>Lifecycle.</b> {@link #open} builds, {@link #load()} recovers the CommitLog, then the queues
 * and index against it, re-dispatches synchronously what they miss (so queue-offset counters are
 * right before the first put), {@link #start()} starts the services. {@link #shutdown()} runs, in this
 * order and going on past a failed step: stop puts → drain the dispatcher → CommitLog flush and stop
 * → queues and index flush and close → checkpoint flush → abort marker deleted (only if every step
 * succeeded and the store did not fail-stop) → unmap. Puts, reads and lookups are thread-safe.
 */
public final class MessageStore implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MessageStore.class);

    private enum State { NEW, LOADED, RUNNING, STOPPED }

    static final String STOP_PUTS = "stop puts";
    static final String DRAIN_DISPATCHER = "drain the dispatcher";
    static final String STOP_COMMIT_LOG = "flush and stop the CommitLog";
    static final String CLOSE_QUEUES = "flush and close the consume queues";
    static final String CLOSE_INDEX = "flush and close the index";
    static final String FLUSH_CHECKPOINT = "flush the checkpoint";
    static final String DELETE_ABORT_MARKER = "delete the abort marker";
    static final String UNMAP = "unmap the CommitLog";

    private final StoreConfig config;
    private final CommitLog commitLog;
    private final ConsumeQueueStore queues;
    private final IndexService index;
    private final MessageReader reader;
    private final DiskSpaceMonitor diskMonitor;
    private final StoreCleanService cleanService;
    private final FlushConsumeQueueService flushConsumeQueueService;
    private final StoreCheckpoint checkpoint;
    private final AbortMarker abortMarker;
    private final FailStop failStop;
    private final MessageRecordDecoder decoder = new MessageRecordDecoder();
    private volatile MessageArrivingListener arrivingListener;
    private final PutTransforms transforms = new PutTransforms();
    /** The timer wheel with {@code timerWheelEnable}, else null. */
    private final TimerMessageStore timer;
    private final TimerMessages timerMessages;
    private volatile ReputMessageService reput;
    /** Refuses puts while the dispatcher is stopped: what they wrote would be acknowledged and unreadable. */
    private final DispatchGate dispatchGate = new DispatchGate(() -> reput);
    /** Errors of dispatchers replaced by truncateTo / alignQueueOffsetsWithLog, so the metric never goes back. */
    private volatile long retiredDispatcherErrors;
    private volatile State state = State.NEW;
    private volatile boolean recoveredFromCrash;
    private ShutdownSteps.Hook shutdownHook = ShutdownSteps.Hook.NONE;
    private final ReplicatedLog replicatedLog;
    /** Replication's bound on dispatch (controller mode's confirmOffset); none by default. */
    private volatile LongSupplier dispatchLimit = NO_DISPATCH_LIMIT;
    private static final LongSupplier NO_DISPATCH_LIMIT = () -> Long.MAX_VALUE;

    /** A dispatcher not woken by an append polls this often, ms (RocketMQ's reput loop sleeps 1 ms). */
    private static final long REPUT_IDLE_WAIT_MS = 1;
    /** How often the disk watch samples the disk usage, ms. */
    private static final long DISK_CHECK_INTERVAL_MS = 1000;

    private MessageStore(StoreConfig config, StoreEnvironment environment, CommitLog commitLog,
                         ConsumeQueueStore queues, IndexService index, StoreCheckpoint checkpoint,
                         AbortMarker abortMarker, FailStop failStop) {
        this.config = config;
        this.commitLog = commitLog;
        this.queues = queues;
        this.index = index;
        this.checkpoint = checkpoint;
        this.abortMarker = abortMarker;
        this.failStop = failStop;
        this.replicatedLog = new StoreReplicatedLog(this, commitLog);
        this.timer = config.timerWheelEnable() ? new TimerMessageStore(config, timerAccess(environment.clock())) : null;
        this.timerMessages = timer != null ? timer : DisabledTimerMessages.INSTANCE;
        this.reader = new MessageReader(queues, new CommitLogReader() {
            @Override
            public SelectedBuffer select(long offset, int size) {
                return commitLog.select(offset, size);
            }

            @Override
            public long minOffset() {
                return commitLog.minOffset();
            }

            @Override
            public long maxOffset() {
                return commitLog.maxOffset();
            }

            @Override
            public long rollNextFile(long offset) {
                return commitLog.rollNextFile(offset);
            }

            @Override
            public int fileSize() {
                return commitLog.fileSize();
            }
        }, ReadLimits.of(config, environment.physicalMemoryBytes()), new CorruptRecordLog(System::currentTimeMillis),
                config.checkCrcOnRead());
        RetentionPolicy policy = RetentionPolicy.of(config);
        this.diskMonitor = new DiskSpaceMonitor(List.of(config.commitLogDir(), config.rootDir()), environment.diskUsage(),
                policy, DISK_CHECK_INTERVAL_MS);
        this.cleanService = new StoreCleanService(commitLog, queues, index, diskMonitor, policy, environment.clock(), config);
        this.flushConsumeQueueService = new FlushConsumeQueueService(queues, index, config.flushIntervalConsumeQueue(),
                config.flushConsumeQueueLeastPages(), config.flushConsumeQueueThoroughInterval(), checkpoint, () -> {
                    ReputMessageService r = reput;
                    return r == null ? 0 : r.lastStoreTimestamp();
                });
    }

    /**
     * Builds the store for {@code config}: CommitLog under {@code storePathCommitLog}, ConsumeQueues
     * under {@code <storePathRootDir>/consumequeue}, IndexFiles under {@code <storePathRootDir>/index}.
     * Existing queue and index files are opened (sizes checked); nothing is recovered until {@link #load()}.
     * The time, the disk usage and the memory size are this machine's.
     */
    public static MessageStore open(StoreConfig config) throws IOException {
        return open(config, StoreEnvironment.system());
    }

    /**
     * As {@link #open(StoreConfig)}, with the time, disk usage and memory size of {@code environment}.
     * Process tests may stall or fail the CommitLog's force() through the JVM system property
     * basalt.test.faultInjection (a test seam in the store; unset in production).
     */
    public static MessageStore open(StoreConfig config, StoreEnvironment environment) throws IOException {
        return open(config, environment, FaultInjectingFlushTarget.fromSystemProperty());
    }

    /** {@link #open(StoreConfig, StoreEnvironment)} with a hook around the CommitLog's flush target (tests). */
    static MessageStore open(StoreConfig config, StoreEnvironment environment, UnaryOperator<FlushTarget> flushPath)
            throws IOException {
        Path root = config.rootDir();
        StoreCheckpoint checkpoint = StoreCheckpoint.open(root.resolve(StoreCheckpoint.FILE_NAME));
        ConsumeQueueStore queues = null;
        IndexService index = null;
        try {
            queues = ConsumeQueueStore.open(root.resolve("consumequeue"), config.mappedFileSizeConsumeQueue(),
                    config.maxOpenConsumeQueueFiles());
            if (config.messageIndexEnable()) {
                index = IndexService.open(root.resolve("index"), config.maxHashSlotNum(), config.maxIndexNum(),
                        environment.clock());
            }
            AbortMarker abortMarker = AbortMarker.in(root);
            FailStop failStop = new FailStop();
            CommitLog commitLog = CommitLog.openForStore(config, checkpoint, abortMarker, failStop, flushPath);
            return new MessageStore(config, environment, commitLog, queues, index, checkpoint, abortMarker, failStop);
        } catch (IOException | RuntimeException e) {
            Closeables.closeAllAfter(e, Arrays.asList(queues, index), Closeable::close);
            checkpoint.close();
            throw e;
        }
    }

    /** Set before {@link #start()}: told after each ConsumeQueue entry is written (long polling). */
    public void setArrivingListener(MessageArrivingListener listener) {
        this.arrivingListener = listener;
    }

    /**
     * Adds a step every later put goes through before the append (see {@link PutMessageTransform});
     * steps run in the order they were added.
     */
    public void addPutTransform(PutMessageTransform transform) {
        transforms.add(transform);
    }

    /** The timer wheel of this store (see {@link TimerMessages}); {@code timerWheelEnable} says whether it runs. */
    public TimerMessages timerMessages() {
        return timerMessages;
    }

    // ---- lifecycle --------------------------------------------------------------------------------

    /**
     * Recovers the CommitLog, then the queues and index against it, and dispatches synchronously
     * whatever they miss; then sets the CommitLog's queue-offset counters from the queues. After a
     * crash (the {@code abort} marker was there), index files ending at or after the checkpoint's
     * indexMsgTimestamp are checked and only a damaged one is deleted and rebuilt (RocketMQ deletes them
     * all, which made every crash restart re-read the CommitLog from its start).
     */
    public synchronized void load() throws IOException {
        if (state != State.NEW) {
            throw new IllegalStateException("MessageStore already loaded");
        }
        boolean crashed = abortMarker.exists();
        recoveredFromCrash = crashed;
        if (crashed) {
            LOG.warn("The abort marker {} is there: the last run did not shut down cleanly, running crash recovery",
                    abortMarker.file());
        }
        long[] firstRecovered = {-1};
        QueueTailsSeen tails = new QueueTailsSeen();
        commitLog.load(check -> {
            if (firstRecovered[0] < 0) {
                firstRecovered[0] = check.physicalOffset();
            }
            tails.record(check);
        });
        // From here on the files may change; until a clean shutdown removes it, the next start recovers.
        abortMarker.create();
        long min = commitLog.minOffset();
        long end = commitLog.maxOffset();
        if (crashed && index != null) {
            // keep what the index files hold (a killed process leaves them complete in the page cache):
            // only a file whose content is damaged is deleted and rebuilt, not every unforced one
            index.deleteCorruptFilesEndingAtOrAfter(checkpoint.indexMsgTimestamp());
        }
        long resume = ConsumeQueueRecovery.recover(queues, index, min, end);
        resume = tails.resume(queues, resume, min);
        long firstSkipped = commitLog.recoveryResult() == null ? -1 : commitLog.recoveryResult().firstSkippedOffset();
        if (firstSkipped >= 0 && firstSkipped < queues.maxPhysicalOffset()) {
            // recoverySkipCorruptRecords skipped a record the queues may point at: cut queues and index
            // back to it and rebuild them from the CommitLog, which dispatches only valid records
            LOG.warn("ConsumeQueues and index cut back to the skipped corrupt CommitLog record at {} and rebuilt "
                + "from there", firstSkipped);
            queues.truncateByMaxPhysicOffset(firstSkipped);
            if (index != null) {
                index.truncateByMaxPhysicOffset(firstSkipped);
            }
            resume = Math.max(min, Math.min(resume, firstSkipped));
        }
        queues.destroyLeftoversOfDeletedTopics();
        queues.deletedTopics().forgetBelow(min);
        if (crashed && firstRecovered[0] >= 0 && firstRecovered[0] < resume) {
            // after a crash, queue and index tails that were never flushed are rebuilt from the
            // CommitLog's recovery point on; a clean shutdown flushed them, so their own end is trusted
            resume = firstRecovered[0];
        }
        ReputMessageService recovering = new ReputMessageService(dispatchSource(true), queues, index, null, resume, 0,
                failStop, config.delayLevels());
        long behind = end - resume;
        while (recovering.doWork() > 0) {
            // drain synchronously: queue offsets must be complete before the first put
        }
        if (recovering.alarm() != null) {
            LOG.error("Recovery dispatch stopped: {}", recovering.alarm());
        }
        LOG.info("Re-dispatched {} bytes of CommitLog [{}, {}) into the queues and index", behind,
                resume, recovering.reputFromOffset());
        for (ConsumeQueue q : queues.allQueues()) {
            commitLog.queueOffsets().set(q.topic(), q.queueId(), q.maxOffset());
        }
        reput = new ReputMessageService(dispatchSource(false), queues, index, arrivals(),
                recovering.reputFromOffset(), REPUT_IDLE_WAIT_MS, failStop,
                config.delayLevels());
        if (timer != null) {
            // after the CommitLog and rmq_sys_wheel_timer are recovered: the wheel checks its units against them
            timer.load();
        }
        state = State.LOADED;
    }

    /**
     * The queue ids of every topic that has a consume queue, as loaded (after {@link #load()}, recovery's
     * re-dispatch included). The broker compares it with its topic table at start. Any thread.
     */
    public Map<String, Set<Integer>> queueIdsByTopic() {
        Map<String, Set<Integer>> byTopic = new java.util.TreeMap<>();
        for (ConsumeQueue q : queues.allQueues()) {
            byTopic.computeIfAbsent(q.topic(), t -> new java.util.TreeSet<>()).add(q.queueId());
        }
        return byTopic;
    }

    /** Starts the CommitLog, the dispatcher (woken on every append), the queue flusher, the disk watch and the cleaner. */
    public synchronized void start() {
        if (state != State.LOADED) {
            throw new IllegalStateException("MessageStore must be loaded before start, state " + state);
        }
        commitLog.start();
        commitLog.addAppendListener(maxReadable -> reput.wakeup());
        reput.start();
        flushConsumeQueueService.start();
        diskMonitor.doWork();
        diskMonitor.start();
        cleanService.start();
        state = State.RUNNING;
        if (timer != null) {
            timer.start();
        }
    }

    /**
     * The clean shutdown, in this order: stop puts (and retention) → drain the dispatcher → CommitLog
     * flush and stop (every waiting put answered) → queues and index flush and close → checkpoint flush
     * → abort marker deleted → unmap the CommitLog. A failed step is logged and the next runs anyway;
     * the marker is deleted only if load() had got through recovery, every step before succeeded and
     * the store did not fail-stop, so that the next start otherwise runs crash recovery. Idempotent.
     */
    public synchronized void shutdown() {
        if (state == State.STOPPED) {
            return;
        }
        boolean loaded = state == State.LOADED || state == State.RUNNING;
        state = State.STOPPED;
        ShutdownSteps steps = new ShutdownSteps(shutdownHook);
        steps.run(STOP_PUTS, () -> {
            if (timer != null) {
                // its re-puts in flight settle first; then its checkpoint is written and its files unmapped
                timer.shutdown();
            }
            commitLog.stopAccepting();
            cleanService.shutdown();
            diskMonitor.shutdown();
        });
        steps.run(DRAIN_DISPATCHER, this::drainDispatcher);
        steps.run(STOP_COMMIT_LOG, commitLog::flushAndStop);
        steps.run(CLOSE_QUEUES, () -> {
            flushConsumeQueueService.shutdown();
            if (loaded) {
                flushConsumeQueueService.flushAndRecord();
            }
            queues.close();
        });
        if (index != null) {
            steps.run(CLOSE_INDEX, index::close);
        }
        steps.run(FLUSH_CHECKPOINT, () -> {
            // flush() reports a failure (which keeps the marker); close() writes the same values into
            // the other slot, so both slots hold the final checkpoint
            checkpoint.flush();
            checkpoint.close();
        });
        if (loaded && !steps.failed() && !failStop.failed()) {
            steps.run(DELETE_ABORT_MARKER, abortMarker::delete);
        } else if (loaded) {
            LOG.warn("Keeping the abort marker {} ({}): the next start runs crash recovery", abortMarker.file(),
                    failStop.failed() ? "the store failed: " + failStop.cause() : "a shutdown step failed");
        }
        steps.run(UNMAP, () -> {
            checkpoint.close();   // a no-op unless its own step failed before closing it
            commitLog.unmap();
        });
        LOG.info("MessageStore shut down{}", steps.failed() ? " with failures: " + steps.failure() : "");
    }

    private void drainDispatcher() {
        ReputMessageService r = reput;
        if (r != null) {
            r.shutdown();
            while (r.alarm() == null && r.doWork() > 0) {
                // what was appended before puts stopped still reaches the queues
            }
        }
    }

    /** Tests: told after each shutdown step by name (record the order, or fail a step by throwing). */
    synchronized void onShutdownStep(ShutdownSteps.Hook hook) {
        this.shutdownHook = hook;
    }

    @Override
    public void close() {
        shutdown();
    }

    /**
     * The dispatcher's arrival listener: the one set with {@link #setArrivingListener}, and with the timer
     * wheel, a wake-up of its enqueue service for each rmq_sys_wheel_timer entry.
     */
    private MessageArrivingListener arrivals() {
        MessageArrivingListener user = arrivingListener;
        TimerMessageStore t = timer;
        if (t == null) {
            return user;
        }
        return (topic, queueId, consumeQueueOffset, tagsCode, storeTimestamp) -> {
            if (TimerConstants.TIMER_TOPIC.equals(topic)) {
                t.onArrival();
            }
            if (user != null) {
                user.arriving(topic, queueId, consumeQueueOffset, tagsCode, storeTimestamp);
            }
        };
    }

    /** What the timer wheel reads and writes of this store: rmq_sys_wheel_timer queue 0, records, puts, the time. */
    private TimerStoreAccess timerAccess(java.time.Clock clock) {
        return new TimerStoreAccess() {
            @Override
            public long nowMs() {
                return clock.millis();
            }

            @Override
            public long wheelQueueMinOffset() {
                return getMinOffsetInQueue(TimerConstants.TIMER_TOPIC, 0);
            }

            @Override
            public long wheelQueueMaxOffset() {
                return getMaxOffsetInQueue(TimerConstants.TIMER_TOPIC, 0);
            }

            @Override
            public ConsumeQueueEntry wheelQueueEntry(long offset) {
                ConsumeQueue q = find(TimerConstants.TIMER_TOPIC, 0);
                return q == null ? null : q.entry(offset);
            }

            @Override
            public long wheelQueueStoreTimestamp(long offset) {
                return getMessageStoreTimeStamp(TimerConstants.TIMER_TOPIC, 0, offset);
            }

            @Override
            public StoredMessage read(long commitLogOffset) {
                return lookMessageByOffset(commitLogOffset);
            }

            @Override
            public long commitLogMinOffset() {
                return commitLog.minOffset();
            }

            @Override
            public long commitLogMaxOffset() {
                return commitLog.maxOffset();
            }

            @Override
            public CompletableFuture<PutMessageResult> put(BrokerMessage message) {
                return asyncPutMessage(message);
            }
        };
    }

    private DispatchSource dispatchSource(boolean recovering) {
        return new CommitLogDispatchSource(commitLog, recovering, () -> dispatchLimit.getAsLong());
    }

    /** See {@link ReplicatedLog#setDispatchLimit}; null removes the bound. */
    void setDispatchLimit(LongSupplier limit) {
        this.dispatchLimit = limit == null ? NO_DISPATCH_LIMIT : limit;
        ReputMessageService r = reput;
        if (r != null) {
            r.wakeup();
        }
    }

    /** Next CommitLog offset the dispatcher takes; everything below it is in the ConsumeQueues. */
    long dispatchedOffset() {
        ReputMessageService r = reput;
        return r == null ? 0 : r.reputFromOffset();
    }

    // ---- writes -----------------------------------------------------------------------------------

    /**
     * Appends one message. Fails fast with SERVICE_NOT_AVAILABLE, writing nothing, when the store is
     * not running or the disk is above diskSpaceWarningLevelRatio (see {@link #diskFullReason()}).
     */
    public CompletableFuture<PutMessageResult> asyncPutMessage(BrokerMessage msg) {
        PutMessageStatus refused = refusal();
        if (refused != null) {
            return CompletableFuture.completedFuture(PutMessageResult.rejected(refused));
        }
        if (transforms.isEmpty()) {
            return commitLog.asyncPutMessage(msg);
        }
        PutTransforms.Outcome outcome = transforms.apply(msg);
        if (outcome.refusal() != null) {
            return CompletableFuture.completedFuture(outcome.refusal());
        }
        BrokerMessage appended = outcome.messages().get(0);
        CompletableFuture<PutMessageResult> put = commitLog.asyncPutMessage(appended);
        return appended == msg ? put : put.thenApply(r -> r.withAppended(outcome.messages()));
    }

    /** Appends a batch for one queue; refused as {@link #asyncPutMessage}. */
    public CompletableFuture<PutMessageResult> asyncPutMessages(List<BrokerMessage> batch) {
        PutMessageStatus refused = refusal();
        if (refused != null) {
            return CompletableFuture.completedFuture(PutMessageResult.rejected(refused));
        }
        if (transforms.isEmpty() || batch.isEmpty()) {
            return commitLog.asyncPutMessages(batch);
        }
        PutTransforms.Outcome outcome = transforms.applyToBatch(batch);
        if (outcome.refusal() != null) {
            return CompletableFuture.completedFuture(outcome.refusal());
        }
        CompletableFuture<PutMessageResult> put = commitLog.asyncPutMessages(outcome.messages());
        return sameMessages(batch, outcome.messages()) ? put : put.thenApply(r -> r.withAppended(outcome.messages()));
    }

    private static boolean sameMessages(List<BrokerMessage> given, List<BrokerMessage> appended) {
        for (int i = 0; i < given.size(); i++) {
            if (given.get(i) != appended.get(i)) {
                return false;
            }
        }
        return true;
    }

    private PutMessageStatus refusal() {
        if (state != State.RUNNING) {
            return PutMessageStatus.SERVICE_NOT_AVAILABLE;
        }
        if (diskMonitor.isDiskFull() || dispatchGate.refuses()) {
            return PutMessageStatus.SERVICE_NOT_AVAILABLE;
        }
        return null;
    }

    /** Why puts are refused because dispatch stopped or pauses (null while it runs); see {@code DispatchGate}. */
    public String dispatchStoppedReason() {
        return dispatchGate.reason();
    }

    /** Puts refused so far because dispatch had stopped or paused. */
    public long dispatchStoppedRefusals() {
        return dispatchGate.refusals();
    }

    /**
     * Why puts are refused for lack of disk space or because the dispatcher cannot write the consume
     * queues or the index (a full disk, no file descriptors): empty when they are not.
     */
    public String diskFullReason() {
        String blocked = dispatchWriteBlocked();
        String full = diskMonitor.fullReason();
        if (blocked == null) {
            return full;
        }
        return full == null || full.isEmpty() ? blocked : full + "; " + blocked;
    }

    /**
     * Why the dispatcher pauses (writing a ConsumeQueue entry or index keys fails; it retries and puts
     * are refused meanwhile), or null while it can write.
     */
    public String dispatchWriteBlocked() {
        ReputMessageService r = reput;
        return r == null ? null : r.writeBlocked();
    }

    public boolean isDiskFull() {
        return diskMonitor.isDiskFull();
    }

    // ---- reads ------------------------------------------------------------------------------------

    /**
     * Up to {@code maxMsgNums} messages of (topic, queueId) from logical {@code offset} that pass
     * {@code filter} (by tag hash; null = all), as held read-only slices; close the result when done.
     * {@code group} names the consumer group (for logs; offsets are the broker's business).
     */
    public GetMessageResult getMessage(String group, String topic, int queueId, long offset, int maxMsgNums,
                                       MessageFilter filter) {
        if (state == State.STOPPED || topic == null) {
            return new GetMessageResult(GetMessageStatus.NO_MATCHED_LOGIC_QUEUE, offset, 0, 0, List.of(), 0, false);
        }
        return reader.getMessage(topic, queueId, offset, maxMsgNums, filter);
    }

    /**
     * The number of queues each topic has on disk: the highest queue id whose consume queue holds an
     * entry, plus one (topics whose queues are all empty are left out). Call after {@link #load()};
     * the broker compares it with the queue counts of topics.json at start.
     */
    public java.util.Map<String, Integer> queueCountsOnDisk() {
        java.util.Map<String, Integer> counts = new java.util.TreeMap<>();
        for (ConsumeQueue q : queues.allQueues()) {
            if (q.maxOffset() > 0) {
                counts.merge(q.topic(), q.queueId() + 1, Math::max);
            }
        }
        return counts;
    }

    /**
     * Whether the message at logical {@code consumeQueueOffset} of (topic, queueId) counts as still in memory:
     * its CommitLog position is within {@code accessMessageInMemoryMaxRatio} % of physical memory behind the
     * CommitLog's end. False when there is no such message. Any thread.
     */
    public boolean isInMemory(String topic, int queueId, long consumeQueueOffset) {
        if (state == State.STOPPED || topic == null) {
            return false;
        }
        return reader.isInMemory(topic, queueId, consumeQueueOffset);
    }

    public long getMinOffsetInQueue(String topic, int queueId) {
        ConsumeQueue q = find(topic, queueId);
        return q == null ? 0 : q.minOffset();
    }

    /** Next logical offset to be written in (topic, queueId): what consumers see as the max offset. */
    public long getMaxOffsetInQueue(String topic, int queueId) {
        ConsumeQueue q = find(topic, queueId);
        return q == null ? 0 : q.maxOffset();
    }

    /**
     * Up to {@code maxEntries} consume-queue entries of (topic, queueId) from logical {@code fromOffset}
     * on, in offset order, without reading the CommitLog: what the schedule service reads deliver
     * times from (a SCHEDULE_TOPIC_XXXX entry's tagsCode). Empty when {@code fromOffset} is outside
     * [min, max) or there is no such queue; at most the entries of one consume-queue file per call, so
     * fewer than asked does not mean the end. Placeholder entries are returned as they are (size
     * {@code Integer.MAX_VALUE}, physical offset 0). Any thread.
     */
    public List<QueueEntry> readQueueEntries(String topic, int queueId, long fromOffset, int maxEntries) {
        ConsumeQueue q = find(topic, queueId);
        if (q == null || maxEntries <= 0) {
            return List.of();
        }
        ByteBuffer buffer = ByteBuffer.allocate(Math.min(maxEntries, 1024) * ConsumeQueueEntry.SIZE);
        int n = q.read(fromOffset, maxEntries, buffer);
        List<QueueEntry> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int at = i * ConsumeQueueEntry.SIZE;
            entries.add(new QueueEntry(fromOffset + i, buffer.getLong(at), buffer.getInt(at + 8), buffer.getLong(at + 12)));
        }
        return entries;
    }

    /** End (offset + size) in the CommitLog of the last entry of (topic, queueId); 0 if none. */
    public long getMaxPhysicOffsetInQueue(String topic, int queueId) {
        ConsumeQueue q = find(topic, queueId);
        return q == null ? 0 : q.maxPhysicalOffset();
    }

    /** CommitLog offset of the message at logical {@code consumeQueueOffset}, or -1. */
    public long getCommitLogOffsetInQueue(String topic, int queueId, long consumeQueueOffset) {
        ConsumeQueue q = find(topic, queueId);
        ConsumeQueueEntry e = q == null ? null : q.entry(consumeQueueOffset);
        return e == null || e.isPlaceholder() ? -1 : e.physicalOffset();
    }

    /** Store time of the message at logical {@code consumeQueueOffset}, or -1. */
    public long getMessageStoreTimeStamp(String topic, int queueId, long consumeQueueOffset) {
        ConsumeQueue q = find(topic, queueId);
        ConsumeQueueEntry e = q == null ? null : q.entry(consumeQueueOffset);
        return e == null || e.isPlaceholder() ? -1 : storeTimestamp(e.physicalOffset(), e.size());
    }

    /** Logical offset for a store time (first message at or after it: {@link BoundaryType#LOWER}). */
    public long getOffsetInQueueByTime(String topic, int queueId, long timestamp) {
        return getOffsetInQueueByTime(topic, queueId, timestamp, BoundaryType.LOWER);
    }

    public long getOffsetInQueueByTime(String topic, int queueId, long timestamp, BoundaryType boundary) {
        ConsumeQueue q = find(topic, queueId);
        return q == null ? 0 : q.offsetForTimestamp(timestamp, boundary, this::storeTimestamp);
    }

    private ConsumeQueue find(String topic, int queueId) {
        return topic == null ? null : queues.find(topic, queueId);
    }

    private long storeTimestamp(long physicalOffset, int size) {
        SelectedBuffer b = commitLog.select(physicalOffset, size);
        if (b == null) {
            return -1;
        }
        try {
            ByteBuffer buf = b.buffer();
            int sysFlag = buf.getInt(RecordFormat.SYS_FLAG_POSITION);
            return buf.getLong(RecordFormat.storeTimestampPosition(sysFlag));
        } finally {
            b.release();
        }
    }

    /** The whole record at {@code physicalOffset} as a held slice, or null if no message record starts there. */
    public SelectedBuffer selectOneMessageByOffset(long physicalOffset) {
        return reader.selectRecord(physicalOffset);
    }

    /** The message at {@code physicalOffset}, decoded, or null. */
    public StoredMessage lookMessageByOffset(long physicalOffset) {
        try (SelectedBuffer b = reader.selectRecord(physicalOffset)) {
            return b == null ? null : MessageRecordDecoder.decode(b.buffer().duplicate());
        }
    }

    /** The message named by an offset message id (store host, port, CommitLog offset), or null. */
    public StoredMessage viewMessageById(String offsetMsgId) {
        OffsetMessageId id;
        try {
            id = OffsetMessageId.decode(offsetMsgId);
        } catch (IllegalArgumentException e) {
            return null;
        }
        return lookMessageByOffset(id.physicalOffset());
    }

    /** The stored record (RocketMQ's encoding) named by an offset message id, as bytes, or null. */
    public byte[] messageRecordById(String offsetMsgId) {
        OffsetMessageId id;
        try {
            id = OffsetMessageId.decode(offsetMsgId);
        } catch (IllegalArgumentException e) {
            return null;
        }
        try (SelectedBuffer b = reader.selectRecord(id.physicalOffset())) {
            if (b == null) {
                return null;
            }
            byte[] record = new byte[b.size()];
            b.buffer().duplicate().get(record);
            return record;
        }
    }

    /**
     * Messages of {@code topic} whose KEYS contain {@code key} or whose UNIQ_KEY is {@code key}, stored
     * within [begin, end], newest first, at most {@code maxNum} (and maxMsgsNumBatch). Index hash collisions are filtered
     * out here by comparing the keys of the records. Close the result when done.
     */
    public QueryMessageResult queryMessage(String topic, String key, int maxNum, long begin, long end) {
        if (index == null || topic == null || key == null || maxNum <= 0) {
            return new QueryMessageResult(List.of(), 0, 0);
        }
        QueryOffsetResult offsets = index.queryOffset(topic, key, Math.min(maxNum, config.maxMsgsNumBatch()), begin, end);
        List<SelectedBuffer> found = new ArrayList<>();
        for (long offset : offsets.physicalOffsets()) {
            SelectedBuffer b = reader.selectRecord(offset);
            if (b == null) {
                continue;
            }
            RecordCheck c = decoder.check(b.buffer().duplicate(), false);
            boolean matches = c.isOk() && topic.equals(c.topic())
                    && (key.equals(c.uniqKey()) || (c.keys() != null
                        && Arrays.asList(c.keys().split(MessageProperties.KEY_SEPARATOR)).contains(key)));
            if (matches) {
                found.add(b);
            } else {
                b.release();
            }
        }
        return new QueryMessageResult(List.copyOf(found), offsets.indexLastUpdateTimestamp(),
                offsets.indexLastUpdatePhyOffset());
    }

    // ---- replication (slave side) -----------------------------------------------------------------

    /**
     * Slave replication: appends raw CommitLog bytes at exactly {@code physicalOffset} (see
     * {@link CommitLog#appendReplicated}); the dispatcher then builds queues and index from them.
     */
    ReplicaAppend appendReplicated(long physicalOffset, ByteBuffer data) {
        if (state != State.RUNNING) {
            return ReplicaAppend.NOT_WRITABLE;
        }
        return commitLog.appendReplicated(physicalOffset, data);
    }

    /**
     * Slave replication after a master change: cuts the CommitLog back to {@code physicalOffset} (a
     * record boundary both sides share), drops queue entries and index entries beyond it, resets the
     * queue-offset counters and restarts the dispatcher there. No-op when the log already ends there.
     */
    synchronized void truncateTo(long physicalOffset) throws IOException {
        if (state != State.RUNNING) {
            throw new IllegalStateException("MessageStore not running, state " + state);
        }
        if (commitLog.committedOffset() <= physicalOffset) {
            return;
        }
        ReputMessageService old = reput;
        old.shutdown();
        commitLog.truncateTo(physicalOffset);
        // the cut file was zeroed and forced; make the removal of later files durable too, so that a crash
        // right after cannot bring back a tail the master does not have
        forceDirectory(config.commitLogDir());
        queues.truncateByMaxPhysicOffset(physicalOffset);
        if (index != null) {
            index.truncateByMaxPhysicOffset(physicalOffset);
        }
        for (ConsumeQueue q : queues.allQueues()) {
            commitLog.queueOffsets().set(q.topic(), q.queueId(), q.maxOffset());
        }
        ReputMessageService next = new ReputMessageService(dispatchSource(false), queues, index, arrivals(),
                Math.min(old.reputFromOffset(), physicalOffset), REPUT_IDLE_WAIT_MS, failStop,
                config.delayLevels());
        retiredDispatcherErrors += old.errorCount();
        reput = next;
        next.start();
    }

    private static void forceDirectory(java.nio.file.Path dir) {
        try (java.nio.channels.FileChannel d = java.nio.channels.FileChannel.open(dir, java.nio.file.StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException ignored) {
            // some file systems cannot open a directory for fsync; the renames are still atomic
        }
    }

    /**
     * A slave becoming master: dispatches everything replicated so far, then sets the CommitLog's
     * queue-offset counters from the ConsumeQueues (on a slave the dispatcher, not the put path,
     * advanced them), so the first own put continues each queue where the replicated log ended.
     */
    synchronized void alignQueueOffsetsWithLog() {
        if (state != State.RUNNING) {
            throw new IllegalStateException("MessageStore not running, state " + state);
        }
        ReputMessageService old = reput;
        old.shutdown();
        while (old.alarm() == null && old.doWork() > 0) {
            // the queues must hold every replicated record before the counters are read
        }
        for (ConsumeQueue q : queues.allQueues()) {
            commitLog.queueOffsets().set(q.topic(), q.queueId(), q.maxOffset());
        }
        ReputMessageService next = new ReputMessageService(dispatchSource(false), queues, index, arrivals(),
                old.reputFromOffset(), REPUT_IDLE_WAIT_MS, failStop,
                config.delayLevels());
        retiredDispatcherErrors += old.errorCount();
        reput = next;
        next.start();
    }

    // ---- topics -------------------------------------------------------------------------------------

    /**
     * Deletes {@code topics} from the store, as RocketMQ's deleteTopics does: each topic's
     * ConsumeQueues (files and directories) and queue-offset counters go, so a topic created again
     * starts empty at offset 0; its CommitLog records stay until retention removes them, and its index
     * keys stay. Unlike RocketMQ, the deletion is recorded durably first (with the CommitLog end at
     * that moment) so that no restart, clean or after a crash, re-dispatches the old records into new
     * queues. Readers in the middle of a pull get no entries or their held slices (the CommitLog is
     * untouched), never an unmapped buffer. The dispatcher is paused meanwhile. Returns how many of
     * the topics had queues. Thread-safe; blocks puts only while the counters are removed.
     */
    public synchronized int deleteTopics(Set<String> topics) throws IOException {
        if (state != State.RUNNING) {
            throw new IllegalStateException("MessageStore not running, state " + state);
        }
        if (topics.isEmpty()) {
            return 0;
        }
        ReputMessageService old = reput;
        // the dispatcher writes the queues; stopped, it is not in the middle of a queue being destroyed
        old.shutdown();
        int deleted = 0;
        try {
            long deletedAt = commitLog.retireQueueOffsets(topics);
            queues.deletedTopics().record(topics, deletedAt);
            for (String topic : topics) {
                int destroyed = queues.destroyTopic(topic);
                if (destroyed > 0) {
                    deleted++;
                }
                LOG.info("Topic {} deleted from the store at CommitLog offset {}: {} consume queues destroyed",
                        topic, deletedAt, destroyed);
            }
            queues.deletedTopics().forgetBelow(commitLog.minOffset());
        } finally {
            ReputMessageService next = new ReputMessageService(dispatchSource(false), queues, index, arrivals(),
                    old.reputFromOffset(), REPUT_IDLE_WAIT_MS, failStop,
                config.delayLevels());
            retiredDispatcherErrors += old.errorCount();
            reput = next;
            next.start();
        }
        return deleted;
    }

    // ---- state --------------------------------------------------------------------------------------

    public long getMinPhyOffset() {
        return commitLog.minOffset();
    }

    public long getMaxPhyOffset() {
        return commitLog.maxOffset();
    }

    /** Next CommitLog offset the dispatcher will read. */
    public long getReputFromOffset() {
        ReputMessageService r = reput;
        return r == null ? 0 : r.reputFromOffset();
    }

    /** Dispatchable CommitLog bytes not yet in the queues (RocketMQ's dispatchBehindBytes). */
    public long dispatchBehindBytes() {
        ReputMessageService r = reput;
        return r == null ? 0 : r.behindBytes();
    }

    /** Why dispatch stopped (an undecodable record), or null while it runs. */
    public String dispatchAlarm() {
        ReputMessageService r = reput;
        return r == null ? null : r.alarm();
    }

    /** End of what the CommitLog's force() made durable. */
    public long flushedOffset() {
        return commitLog.flushedOffset();
    }

    /** End of what was written to the CommitLog's files (the page cache). */
    public long committedOffset() {
        return commitLog.committedOffset();
    }

    /** How long the current holder of the put lock has held it, 0 when free (a metric). */
    public long putLockHeldMs() {
        return commitLog.putLockHeldMs();
    }

    /** Tells {@code observer} of each force of the CommitLog (flush latency and group size metrics). */
    public void setFlushObserver(FlushObserver observer) {
        commitLog.setFlushObserver(observer);
    }

    /**
     * Deletes now, oldest first, every CommitLog file but the newest, skipping any a reader still holds
     * for up to {@code destroyWaitMs} (as retention does when the disk is full; the cleaning service then
     * drops the queue and index entries that pointed into them). Returns the number of files deleted.
     */
    public int deleteCommitLogFilesNow(long destroyWaitMs) {
        return commitLog.deleteExpiredFiles(0, 0, destroyWaitMs, true);
    }

    /**
     * RocketMQ's DELETE_EXPIRED_COMMITLOG: the cleaning service's next 20 rounds (the first at once, then one
     * every {@code cleanResourceInterval}) delete CommitLog files older than {@code fileReservedTime} whatever
     * the hour, as if each were a {@code deleteWhen} hour. Never the newest file, nor one a reader holds.
     */
    public void requestExpiredCommitLogDeletion() {
        cleanService.requestManualDeletion();
    }

    /** Manual deletion rounds (see {@link #requestExpiredCommitLogDeletion()}) still to run. */
    public int expiredCommitLogDeletionRoundsLeft() {
        return cleanService.manualRoundsLeft();
    }

    /**
     * RocketMQ's CLEAN_EXPIRED_CONSUMEQUEUE, now: deletes every ConsumeQueue (and index) file whose entries all
     * point below the CommitLog's min offset, and moves each queue's min offset to its first entry still in the
     * CommitLog. A queue keeps its newest file, so it keeps its position: the next message gets the next offset,
     * where RocketMQ, dropping the queue, would start it again at 0 under consumers' feet. Returns the number of
     * files deleted. Any thread.
     *
     * @throws IOException when a file could not be deleted (the files before it are gone)
     */
    public int cleanExpiredConsumeQueues() throws IOException {
        return cleanService.deleteQueueAndIndexFilesBelowMin();
    }

    /** The replication SPI: raw log reads and writes and the put path's replica wait. */
    public ReplicatedLog replicatedLog() {
        return replicatedLog;
    }

    CommitLog commitLog() {
        return commitLog;
    }

    /** The store's checkpoint (the store owns it). */
    public StoreCheckpoint checkpoint() {
        return checkpoint;
    }

    /** True while puts are accepted: running, and no write failure or durability-critical error. */
    public boolean isWritable() {
        return state == State.RUNNING && !failStop.failed();
    }

    /**
     * CommitLog files retention deleted before fileReservedTime since start (a forced clean under
     * disk pressure, {@code cleanFileForciblyEnable}); each one also got a WARN line.
     */
    public long commitLogFilesDeletedEarly() {
        return commitLog.filesDeletedBeforeExpiry();
    }

    /**
     * CommitLog records reads found corrupt since start (CRC mismatch: bit rot); none of them was served.
     * A consumer retrying a bad record counts again on each pull.
     */
    public long corruptRecordsRead() {
        return reader.corruptRecordsFound();
    }

    /** True once the store fail-stopped (read-only for good); {@link #failStopCause()} says why. */
    public boolean isFailStopped() {
        return failStop.failed();
    }

    /** What tripped the fail-stop, or null. */
    public Throwable failStopCause() {
        return failStop.cause();
    }

    /**
     * The error policy of a durability-critical service outside the store (HA's replica wait): an
     * unexpected error of it fail-stops the store, naming the service in one ERROR line.
     */
    public ErrorPolicy durabilityErrorPolicy() {
        return failStop;
    }

    /** Whether the last {@link #load()} found the abort marker and ran crash recovery. */
    public boolean recoveredFromCrash() {
        return recoveredFromCrash;
    }

    /**
     * Unexpected errors so far of each of the store's service threads, by thread name (a metric; a
     * dispatcher replaced by truncateTo keeps its count).
     */
    public Map<String, Long> serviceErrorCounts() {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (ServiceThread s : commitLog.services()) {
            counts.merge(s.name(), s.errorCount(), Long::sum);
        }
        ReputMessageService r = reput;
        counts.merge("ReputMessageService", retiredDispatcherErrors + (r == null ? 0 : r.errorCount()), Long::sum);
        for (ServiceThread s : List.of(flushConsumeQueueService, diskMonitor, cleanService)) {
            counts.merge(s.name(), s.errorCount(), Long::sum);
        }
        return counts;
    }

    /** Sum of {@link #serviceErrorCounts()}. */
    public long serviceErrorCount() {
        long sum = 0;
        for (long n : serviceErrorCounts().values()) {
            sum += n;
        }
        return sum;
    }

    StoreCleanService cleanService() {
        return cleanService;
    }

    FlushConsumeQueueService flushConsumeQueueService() {
        return flushConsumeQueueService;
    }

    DiskSpaceMonitor diskMonitor() {
        return diskMonitor;
    }

    /**
     * Applies {@code config}'s retention settings ({@code deleteWhen}, {@code diskMaxUsedSpaceRatio}) to the cleaning
     * of expired CommitLog files from its next round on; for a change made while the broker runs.
     */
    public void updateRetention(StoreConfig config) {
        cleanService.updatePolicy(RetentionPolicy.of(config));
    }
}
