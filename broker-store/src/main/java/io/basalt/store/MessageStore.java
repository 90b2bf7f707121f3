package io.basalt.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.basalt.store.commitlog.BrokerMessage;
import io.basalt.store.commitlog.CommitLog;
import io.basalt.store.commitlog.MessageProperties;
import io.basalt.store.commitlog.MessageRecordDecoder;
import io.basalt.store.commitlog.OffsetMessageId;
import io.basalt.store.commitlog.PutMessageResult;
import io.basalt.store.commitlog.PutMessageStatus;
import io.basalt.store.commitlog.RecordCheck;
import io.basalt.store.commitlog.RecordFormat;
import io.basalt.store.commitlog.StoredMessage;
import io.basalt.store.index.IndexService;
import io.basalt.store.index.QueryOffsetResult;
import io.basalt.store.mappedfile.SelectedBuffer;
import io.basalt.store.queue.BoundaryType;
import io.basalt.store.queue.ConsumeQueue;
import io.basalt.store.queue.ConsumeQueueEntry;
import io.basalt.store.queue.ConsumeQueueStore;
import io.basalt.store.queue.DispatchSource;
import io.basalt.store.queue.FlushConsumeQueueService;
import io.basalt.store.queue.MessageArrivingListener;
import io.basalt.store.queue.ReputMessageService;
import io.basalt.store.recovery.AbortMarker;
import io.basalt.store.recovery.ConsumeQueueRecovery;
import io.basalt.store.retention.DiskSpaceMonitor;
import io.basalt.store.retention.RetentionPolicy;

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
 * <p><b>Lifecycle.</b> {@link #open} builds, {@link #load()} recovers the CommitLog, then the queues
 * and index against it, re-dispatches synchronously what they miss (so queue-offset counters are
 * right before the first put), {@link #start()} starts the services, {@link #shutdown()} stops
 * accepting, drains the dispatcher, shuts the CommitLog down (flush, checkpoint, abort marker) and
 * closes the queues. Puts, reads and lookups are thread-safe.
 */
public final class MessageStore implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MessageStore.class);

    private enum State { NEW, LOADED, RUNNING, STOPPED }

    private final StoreConfig config;
    private final CommitLog commitLog;
    private final ConsumeQueueStore queues;
    private final IndexService index;
    private final MessageReader reader;
    private final DiskSpaceMonitor diskMonitor;
    private final StoreCleanService cleanService;
    private final FlushConsumeQueueService flushConsumeQueueService;
    private final boolean syncFlush;
    private final MessageRecordDecoder decoder = new MessageRecordDecoder();
    private volatile MessageArrivingListener arrivingListener;
    private volatile ReputMessageService reput;
    private volatile State state = State.NEW;

    /** A dispatcher not woken by an append polls this often, ms (RocketMQ's reput loop sleeps 1 ms). */
    private static final long REPUT_IDLE_WAIT_MS = 1;
    /** How often the disk watch samples the disk usage, ms. */
    private static final long DISK_CHECK_INTERVAL_MS = 1000;

    private MessageStore(StoreConfig config, StoreEnvironment environment, CommitLog commitLog,
                         ConsumeQueueStore queues, IndexService index) {
        this.config = config;
        this.commitLog = commitLog;
        this.queues = queues;
        this.index = index;
        this.syncFlush = config.flushDiskType() == FlushDiskType.SYNC_FLUSH;
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
        }, ReadLimits.of(config, environment.physicalMemoryBytes()));
        RetentionPolicy policy = RetentionPolicy.of(config);
        this.diskMonitor = new DiskSpaceMonitor(List.of(config.commitLogDir(), config.rootDir()), environment.diskUsage(),
                policy, DISK_CHECK_INTERVAL_MS);
        this.cleanService = new StoreCleanService(commitLog, queues, index, diskMonitor, policy, environment.clock(), config);
        this.flushConsumeQueueService = new FlushConsumeQueueService(queues, index, config.flushIntervalConsumeQueue(),
                commitLog.checkpoint(), () -> {
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

    /** As {@link #open(StoreConfig)}, with the time, disk usage and memory size of {@code environment}. */
    public static MessageStore open(StoreConfig config, StoreEnvironment environment) throws IOException {
        Path root = config.rootDir();
        ConsumeQueueStore queues = ConsumeQueueStore.open(root.resolve("consumequeue"), config.mappedFileSizeConsumeQueue());
        IndexService index = null;
        try {
            if (config.messageIndexEnable()) {
                index = IndexService.open(root.resolve("index"), config.maxHashSlotNum(), config.maxIndexNum(),
                        environment.clock());
            }
            return new MessageStore(config, environment, CommitLog.open(config), queues, index);
        } catch (IOException | RuntimeException e) {
            try {
                queues.close();
                if (index != null) {
                    index.close();
                }
            } catch (IOException closeError) {
                e.addSuppressed(closeError);
            }
            throw e;
        }
    }

    /** Set before {@link #start()}: told after each ConsumeQueue entry is written (long polling). */
    public void setArrivingListener(MessageArrivingListener listener) {
        this.arrivingListener = listener;
    }

    // ---- lifecycle --------------------------------------------------------------------------------

    /**
     * Recovers the CommitLog, then the queues and index against it, and dispatches synchronously
     * whatever they miss; then sets the CommitLog's queue-offset counters from the queues. After a
     * crash (the {@code abort} marker was there), index files ending at or after the checkpoint's
     * indexMsgTimestamp are deleted first and rebuilt, as RocketMQ does.
     */
    public synchronized void load() throws IOException {
        if (state != State.NEW) {
            throw new IllegalStateException("MessageStore already loaded");
        }
        boolean crashed = AbortMarker.in(config.rootDir()).exists();
        long[] firstRecovered = {-1};
        commitLog.load(check -> {
            if (firstRecovered[0] < 0) {
                firstRecovered[0] = check.physicalOffset();
            }
        });
        long min = commitLog.minOffset();
        long end = commitLog.maxOffset();
        if (crashed && index != null) {
            index.deleteFilesEndingAtOrAfter(commitLog.checkpoint().indexMsgTimestamp());
        }
        long resume = ConsumeQueueRecovery.recover(queues, index, min, end);
        if (crashed && firstRecovered[0] >= 0 && firstRecovered[0] < resume) {
            // after a crash, queue and index tails that were never flushed are rebuilt from the
            // CommitLog's recovery point on; a clean shutdown flushed them, so their own end is trusted
            resume = firstRecovered[0];
        }
        ReputMessageService recovering = new ReputMessageService(dispatchSource(true), queues, index, null, resume, 0);
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
        reput = new ReputMessageService(dispatchSource(false), queues, index, arrivingListener,
                recovering.reputFromOffset(), REPUT_IDLE_WAIT_MS);
        state = State.LOADED;
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
    }

    /**
     * Stops accepting puts, drains the dispatcher, shuts the CommitLog down (flush, checkpoint, abort
     * marker) and closes (flushing) the queues and the index. Idempotent.
     */
    public synchronized void shutdown() {
        if (state == State.STOPPED) {
            return;
        }
        state = State.STOPPED;
        cleanService.shutdown();
        diskMonitor.shutdown();
        ReputMessageService r = reput;
        if (r != null) {
            r.shutdown();
            while (r.alarm() == null && r.doWork() > 0) {
                // what was appended before puts stopped still reaches the queues
            }
        }
        commitLog.shutdown();
        flushConsumeQueueService.shutdown();
        try {
            queues.close();
        } catch (IOException e) {
            LOG.error("Closing the consume queues failed: {}", e.toString());
        }
        if (index != null) {
            try {
                index.close();
            } catch (IOException e) {
                LOG.error("Closing the index failed: {}", e.toString());
            }
        }
        LOG.info("MessageStore shut down");
    }

    @Override
    public void close() {
        shutdown();
    }

    private DispatchSource dispatchSource(boolean recovering) {
        return new DispatchSource() {
            @Override
            public long dispatchLimit() {
                // At start-up the recovered log is what is on disk; afterwards SYNC_FLUSH serves only
                // what force() covered.
                return syncFlush && !recovering ? commitLog.flushedOffset() : commitLog.maxOffset();
            }

            @Override
            public long minOffset() {
                return commitLog.minOffset();
            }

            @Override
            public long nextFileOffset(long offset) {
                return commitLog.rollNextFile(offset);
            }

            @Override
            public View read(long offset) {
                SelectedBuffer b = commitLog.select(offset);
                if (b == null) {
                    return null;
                }
                return new View() {
                    @Override
                    public ByteBuffer buffer() {
                        return b.buffer().duplicate();
                    }

                    @Override
                    public void close() {
                        b.release();
                    }
                };
            }
        };
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
        return commitLog.asyncPutMessage(msg);
    }

    /** Appends a batch for one queue; refused as {@link #asyncPutMessage}. */
    public CompletableFuture<PutMessageResult> asyncPutMessages(List<BrokerMessage> batch) {
        PutMessageStatus refused = refusal();
        if (refused != null) {
            return CompletableFuture.completedFuture(PutMessageResult.rejected(refused));
        }
        return commitLog.asyncPutMessages(batch);
    }

    private PutMessageStatus refusal() {
        if (state != State.RUNNING) {
            return PutMessageStatus.SERVICE_NOT_AVAILABLE;
        }
        if (diskMonitor.isDiskFull()) {
            return PutMessageStatus.SERVICE_NOT_AVAILABLE;
        }
        return null;
    }

    /** Why puts are refused for lack of disk space (empty when they are not). */
    public String diskFullReason() {
        return diskMonitor.fullReason();
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

    public long getMinOffsetInQueue(String topic, int queueId) {
        ConsumeQueue q = find(topic, queueId);
        return q == null ? 0 : q.minOffset();
    }

    /** Next logical offset to be written in (topic, queueId): what consumers see as the max offset. */
    public long getMaxOffsetInQueue(String topic, int queueId) {
        ConsumeQueue q = find(topic, queueId);
        return q == null ? 0 : q.maxOffset();
    }

    /** End (offset + size) in the CommitLog of the last entry of (topic, queueId); 0 if none. */
    public long getMaxPhysicOffsetInQueue(String topic, int queueId) {
        ConsumeQueue q = find(topic, queueId);
        return q == null ? 0 : q.maxPhysicOffset();
    }

    /** CommitLog offset of the message at logical {@code consumeQueueOffset}, or -1. */
    public long getCommitLogOffsetInQueue(String topic, int queueId, long consumeQueueOffset) {
        ConsumeQueue q = find(topic, queueId);
        ConsumeQueueEntry e = q == null ? null : q.entry(consumeQueueOffset);
        return e == null || e.isPlaceholder() ? -1 : e.commitLogOffset();
    }

    /** Store time of the message at logical {@code consumeQueueOffset}, or -1. */
    public long getMessageStoreTimeStamp(String topic, int queueId, long consumeQueueOffset) {
        ConsumeQueue q = find(topic, queueId);
        ConsumeQueueEntry e = q == null ? null : q.entry(consumeQueueOffset);
        return e == null || e.isPlaceholder() ? -1 : storeTimestamp(e.commitLogOffset(), e.size());
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

    private long storeTimestamp(long commitLogOffset, int size) {
        SelectedBuffer b = commitLog.select(commitLogOffset, size);
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

    /** The whole record at {@code commitLogOffset} as a held slice, or null if no message record starts there. */
    public SelectedBuffer selectOneMessageByOffset(long commitLogOffset) {
        return reader.selectRecord(commitLogOffset);
    }

    /** The message at {@code commitLogOffset}, decoded, or null. */
    public StoredMessage lookMessageByOffset(long commitLogOffset) {
        try (SelectedBuffer b = reader.selectRecord(commitLogOffset)) {
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
        for (long offset : offsets.phyOffsets()) {
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
    public CommitLog.ReplicaAppend appendReplicated(long physicalOffset, ByteBuffer data) {
        if (state != State.RUNNING) {
            return CommitLog.ReplicaAppend.NOT_WRITABLE;
        }
        return commitLog.appendReplicated(physicalOffset, data);
    }

    /**
     * Slave replication after a master change: cuts the CommitLog back to {@code physicalOffset} (a
     * record boundary both sides share), drops queue entries and index entries beyond it, resets the
     * queue-offset counters and restarts the dispatcher there. No-op when the log already ends there.
     */
    public synchronized void truncateTo(long physicalOffset) throws IOException {
        if (state != State.RUNNING) {
            throw new IllegalStateException("MessageStore not running, state " + state);
        }
        if (commitLog.committedOffset() <= physicalOffset) {
            return;
        }
        ReputMessageService old = reput;
        old.shutdown();
        commitLog.truncateTo(physicalOffset);
        queues.truncateByMaxPhysicOffset(physicalOffset);
        if (index != null) {
            index.truncateByMaxPhysicOffset(physicalOffset);
        }
        for (ConsumeQueue q : queues.allQueues()) {
            commitLog.queueOffsets().set(q.topic(), q.queueId(), q.maxOffset());
        }
        ReputMessageService next = new ReputMessageService(dispatchSource(false), queues, index, arrivingListener,
                Math.min(old.reputFromOffset(), physicalOffset), REPUT_IDLE_WAIT_MS);
        reput = next;
        next.start();
    }

    /**
     * A slave becoming master: dispatches everything replicated so far, then sets the CommitLog's
     * queue-offset counters from the ConsumeQueues (on a slave the dispatcher, not the put path,
     * advanced them), so the first own put continues each queue where the replicated log ended.
     */
    public synchronized void alignQueueOffsetsWithLog() {
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
        ReputMessageService next = new ReputMessageService(dispatchSource(false), queues, index, arrivingListener,
                old.reputFromOffset(), REPUT_IDLE_WAIT_MS);
        reput = next;
        next.start();
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

    public CommitLog commitLog() {
        return commitLog;
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
}
