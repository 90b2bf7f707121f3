package io.basalt.store.commitlog;

import io.basalt.store.AppendMessageResult;
import io.basalt.store.BrokerMessage;
import io.basalt.store.PutMessageResult;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.spi.AppendListener;
import io.basalt.store.spi.ReplicaWait;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.store.spi.ReplicaAppend;
import io.basalt.common.service.ServiceThread;
import io.basalt.store.StoreConfig;
import io.basalt.store.flush.FailStop;
import io.basalt.store.FlushObserver;
import io.basalt.store.flush.FlushPolicy;
import io.basalt.store.flush.FlushTarget;
import io.basalt.store.flush.GroupCommitRequest;
import io.basalt.store.mappedfile.AllocateMappedFileService;
import io.basalt.store.mappedfile.MappedFile;
import io.basalt.store.mappedfile.MappedFileQueue;
import io.basalt.store.SelectedBuffer;
import io.basalt.store.mappedfile.TransientStorePool;
import io.basalt.store.recovery.AbortMarker;
import io.basalt.store.recovery.CommitLogRecovery;
import io.basalt.store.recovery.RecoveryResult;
import io.basalt.store.recovery.StoreCheckpoint;

/**
 * The durable, append-only log every message goes through: RocketMQ's CommitLog files, its record
 * format and its flush modes.
 *
 * <p><b>Put path.</b> {@link #asyncPutMessage} validates the message outside any lock (bad input gets
 * a status, never an exception), then takes the put lock for the append only: read the clock, pick
 * the last file (the allocator has created it ahead of need), assign the queue offset, encode the
 * record in place and advance the counter. Nothing in that section allocates, maps or forces. A
 * record that would not leave room for the END_OF_FILE marker writes the marker and goes to the next
 * file. After the lock the put registers its durability wait with the {@link FlushPolicy} (none for
 * ASYNC_FLUSH, a {@link GroupCommitRequest} for SYNC_FLUSH unless WAIT=false), plus the
 * {@link ReplicaWait} hook. The returned future completes once those are met; no caller thread ever
 * waits for the disk.
 *
 * <p><b>Fail-stop.</b> An {@link IOException} on commit or force, or an unexpected error of a flush
 * service, trips the {@link FailStop}: waiting futures fail, the flushed offset stays where force()
 * left it, later puts get SERVICE_NOT_AVAILABLE and the clean-shutdown marker is left in place.
 *
 * <p><b>The store's files.</b> The {@code checkpoint} and the {@code abort} marker describe the whole
 * store, so inside a {@code MessageStore} the store owns them: it passes the checkpoint (the CommitLog
 * records its recovery point there after each force and writes it every
 * {@code flushCommitLogThoroughInterval} ms) and the fail-stop latch, and runs the shutdown order.
 * Opened on its own ({@link #open(StoreConfig)}: tools, benchmarks, tests) the CommitLog owns both
 * files and plays that part itself, as Aeron's Archive does with a client it created.
 *
 * <p><b>Lifecycle.</b> {@link #open} builds it, {@link #load()} maps and recovers the files,
 * {@link #start()} starts the services. The store stops it in steps: {@link #stopAccepting()},
 * {@link #flushAndStop()} (commits, forces, answers every waiting put), then {@link #unmap()};
 * {@link #shutdown()} runs all three (and, when it owns them, writes the checkpoint and removes the
 * marker between the last two). Puts, reads and offset queries are thread-safe.
 */
public final class CommitLog {
    private static final MessageInternals.Access INTERNALS = MessageInternals.access();
    private static final Logger LOG = LoggerFactory.getLogger(CommitLog.class);
    private static final long PUT_IN_LOCK_WARN_MS = 500;

    private enum State { NEW, LOADED, RUNNING, STOPPED }

    /** Who plays the owner's part for the checkpoint and the abort marker. */
    private enum RunFiles { OWNED, STORE_OWNED }

    private final StoreConfig config;
    private final MappedFileQueue files;
    private final AllocateMappedFileService allocator;
    private final TransientStorePool pool;
    private final StoreCheckpoint checkpoint;
    private final AbortMarker abortMarker;
    private final RunFiles runFiles;
    private final LongSupplier clockMs;
    private final int fileSize;
    private final int maxMessageSize;
    private final long busyTimeoutMs;
    private final boolean writeBuffered;

    private final FailStop failStop;
    private final PutMessageLock putLock = new PutMessageLock();
    private final RecordAppender appender = new RecordAppender();
    private final QueueOffsetTable queueOffsets = new QueueOffsetTable();
    private final List<AppendListener> appendListeners = new CopyOnWriteArrayList<>();
    private volatile ReplicaWait replicaWait = ReplicaWait.NONE;

    private final FlushTarget flushTarget;
    private final FlushPolicy flushPolicy;

    /** Flush thread only. */
    private long lastCheckpointFlushMs;

    /** Written under the put lock (and by lifecycle methods holding it); read by anyone. */
    private volatile State state = State.NEW;
    /** Lifecycle thread: load() got through recovery (so a clean stop may remove the marker). */
    private boolean loaded;
    private boolean flushedAndStopped;
    private boolean unmapped;

    /**
     * @param flushPath wraps the flush target the services use (identity in production; tests put a
     *                  hook there to hold force() back or make it fail)
     */
    private CommitLog(StoreConfig config, MappedFileQueue files, AllocateMappedFileService allocator,
                      TransientStorePool pool, StoreCheckpoint checkpoint, AbortMarker abortMarker, RunFiles runFiles,
                      FailStop failStop, LongSupplier clockMs, UnaryOperator<FlushTarget> flushPath) {
        this.config = config;
        this.files = files;
        this.allocator = allocator;
        this.pool = pool;
        this.checkpoint = checkpoint;
        this.abortMarker = abortMarker;
        this.runFiles = runFiles;
        this.failStop = failStop;
        this.clockMs = clockMs;
        this.fileSize = config.mappedFileSizeCommitLog();
        this.maxMessageSize = config.maxMessageSize();
        this.busyTimeoutMs = config.osPageCacheBusyTimeOutMills();
        this.writeBuffered = pool != null;
        this.flushTarget = flushPath.apply(new CommitLogFlushTarget(files, writeBuffered, this::notifyAppended,
            this::onFlushed));
        this.flushPolicy = FlushPolicy.create(config, flushTarget, failStop, clockMs, writeBuffered, files::maxOffset);
    }

    /**
     * Builds a CommitLog that runs on its own for {@code config}: its file queue in
     * {@code storePathCommitLog}, the allocator, the transient store pool when enabled, and the
     * checkpoint and abort marker in {@code storePathRootDir}, which it owns: {@link #load()} creates
     * the marker, a clean {@link #shutdown()} writes the checkpoint and removes it. Nothing is mapped
     * until {@link #load()}.
     */
    public static CommitLog open(StoreConfig config) throws IOException {
        return open(config, System::currentTimeMillis, UnaryOperator.identity());
    }

    static CommitLog open(StoreConfig config, LongSupplier clockMs, UnaryOperator<FlushTarget> flushPath)
        throws IOException {
        StoreCheckpoint checkpoint = StoreCheckpoint.open(config.rootDir().resolve(StoreCheckpoint.FILE_NAME));
        return build(config, checkpoint, AbortMarker.in(config.rootDir()), RunFiles.OWNED, new FailStop(), clockMs,
            flushPath);
    }

    /**
     * Builds the CommitLog of a store that owns the {@code checkpoint}, the {@code abortMarker} and the
     * {@code failStop} latch: this log records its recovery point in the checkpoint and trips the latch,
     * but never creates or removes the marker nor closes the checkpoint.
     *
     * @param flushPath wraps the flush target the flush services use: identity in production; tests
     *                  put a hook there to hold force() back or make it fail
     */
    public static CommitLog openForStore(StoreConfig config, StoreCheckpoint checkpoint, AbortMarker abortMarker,
                                         FailStop failStop, UnaryOperator<FlushTarget> flushPath) throws IOException {
        return build(config, checkpoint, abortMarker, RunFiles.STORE_OWNED, failStop, System::currentTimeMillis,
            flushPath);
    }

    private static CommitLog build(StoreConfig config, StoreCheckpoint checkpoint, AbortMarker abortMarker,
                                   RunFiles runFiles, FailStop failStop, LongSupplier clockMs,
                                   UnaryOperator<FlushTarget> flushPath) throws IOException {
        TransientStorePool pool = config.transientStorePoolEnable()
            ? new TransientStorePool(config.transientStorePoolSize(), config.mappedFileSizeCommitLog())
            : null;
        AllocateMappedFileService allocator = new AllocateMappedFileService(config.flushDiskType(),
            config.warmMapedFileEnable(), config.flushLeastPagesWhenWarmMapedFile(), pool);
        MappedFileQueue files = new MappedFileQueue(config.commitLogDir(), config.mappedFileSizeCommitLog(), allocator,
            MappedFile.Allocation.forFlushDiskType(config.flushDiskType()));
        allocator.giveBackReadPagesOf(files);
        return new CommitLog(config, files, allocator, pool, checkpoint, abortMarker, runFiles, failStop, clockMs,
            flushPath);
    }

    // ---- lifecycle --------------------------------------------------------------------------------

    private volatile RecoveryResult recoveryResult;

    /** {@link #load(Consumer)} with no one to tell about the recovered records. */
    public void load() throws IOException {
        load(record -> { });
    }

    /**
     * Maps the files and recovers the log: after a clean shutdown the last files are checked; after a
     * crash (the {@code abort} marker is still there) every record from the checkpoint's recovery
     * point is verified and passed to {@code onRecoveredRecord} (the consume-queue rebuild). Everything
     * after the last valid record is cut when it is a torn tail; a corrupt record before the durable
     * point (or with valid records after it) throws {@link io.basalt.store.CorruptCommitLogException},
     * or is skipped under recoverySkipCorruptRecords. Then, if it owns the marker, creates the
     * {@code abort} marker (a store creates its own once the queues are recovered too).
     */
    public synchronized void load(Consumer<RecordCheck> onRecoveredRecord) throws IOException {
        if (state != State.NEW) {
            throw new IllegalStateException("CommitLog already loaded");
        }
        files.load();
        boolean crashed = abortMarker.exists();
        RecoveryResult recovered = new CommitLogRecovery(checkpoint, config.checkCRCOnRecover(), maxMessageSize,
            config.enabledAppendPropCRC(), config.recoverySkipCorruptRecords()).recover(files, crashed, onRecoveredRecord);
        recoveryResult = recovered;
        LOG.info("CommitLog loaded {} files, max offset {}", files.files().size(), recovered.maxOffset());
        if (runFiles == RunFiles.OWNED) {
            abortMarker.create();
        }
        loaded = true;
        state = State.LOADED;
    }

    /** What {@link #load} recovered (null before it ran). Read on the start-up thread. */
    public RecoveryResult recoveryResult() {
        return recoveryResult;
    }

    /**
     * Starts the allocator and the commit/flush services, and has the file the next put goes to
     * created now, so the first put does not wait for a file to be allocated.
     */
    public synchronized void start() {
        if (state != State.LOADED) {
            throw new IllegalStateException("CommitLog must be loaded before start, state " + state);
        }
        allocator.start();
        try {
            files.lastFileOrCreate(0);
        } catch (IOException e) {
            // Not fatal here: the first put asks again and answers CREATE_MAPPED_FILE_FAILED if it still fails.
            LOG.warn("could not create the next CommitLog file in {} at start: {}", files.dir(), e.toString());
        }
        flushPolicy.start();
        state = State.RUNNING;
    }

    /**
     * Clean shutdown of a CommitLog: {@link #stopAccepting()}, {@link #flushAndStop()}, then, when it
     * owns them, writes the checkpoint and removes the {@code abort} marker (only if load() recovered
     * the log and no write failed), and {@link #unmap()}. A store runs these steps itself, with its
     * queues' between them. Idempotent.
     */
    public synchronized void shutdown() {
        stopAccepting();
        flushAndStop();
        if (runFiles == RunFiles.OWNED && !unmapped) {
            // Only a load() that got through recovery created the abort marker; one a crash left behind
            // must survive a shutdown of a log that never loaded.
            if (loaded && !failStop.failed()) {
                try {
                    checkpoint.flush();
                    abortMarker.delete();
                } catch (IOException e) {
                    LOG.error("CommitLog shutdown could not write the checkpoint or remove the abort marker in {}: {}",
                        config.storePathRootDir(), e.toString());
                }
            }
            checkpoint.close();
        }
        unmap();
    }

    /** Refuses every later put and replicated append; those already appended go on to their answer. */
    public void stopAccepting() {
        if (state == State.STOPPED) {
            return;
        }
        if (!putLock.tryLock(Long.MAX_VALUE, clockMs)) {
            throw new IllegalStateException("interrupted while stopping puts");
        }
        try {
            state = State.STOPPED;
        } finally {
            putLock.unlock();
        }
    }

    /**
     * After {@link #stopAccepting()}: the flush policy commits and forces everything appended and
     * answers every waiting put, then its threads and the allocator stop. Idempotent.
     */
    public synchronized void flushAndStop() {
        if (state != State.STOPPED) {
            throw new IllegalStateException("stopAccepting() first, state " + state);
        }
        if (flushedAndStopped) {
            return;
        }
        flushedAndStopped = true;
        flushPolicy.shutdown();
        allocator.shutdown();
        LOG.info("CommitLog stopped at max offset {}, flushed {}", maxOffset(), flushedOffset());
    }

    /** The last step: unmaps the files and frees the transient store pool. Idempotent. */
    public synchronized void unmap() {
        if (unmapped) {
            return;
        }
        if (!flushedAndStopped) {
            throw new IllegalStateException("flushAndStop() first");
        }
        unmapped = true;
        files.shutdown();
        if (pool != null) {
            pool.destroy();
        }
    }

    /**
     * Runs on the flush thread after a force moved the flushed offset: records it as the recovery point
     * (the durable point) and writes it to the checkpoint file, forced at most every
     * {@code flushCommitLogThoroughInterval} ms, so a crash recovery scans only the tail written since
     * and cuts no flushed record as a torn tail.
     */
    private void onFlushed(long flushedOffset, long storeTimestampOrZero) {
        checkpoint.physicRecoveryOffset(flushedOffset);
        if (storeTimestampOrZero > 0) {
            checkpoint.physicMsgTimestamp(storeTimestampOrZero);
        }
        long now = clockMs.getAsLong();
        try {
            if (now - lastCheckpointFlushMs >= config.flushCommitLogThoroughInterval()) {
                lastCheckpointFlushMs = now;
                checkpoint.flushIfChanged();
            } else {
                // the durable point in the page cache at every flush (no force): recovery after a process
                // crash then knows every flushed record is not a torn tail
                checkpoint.writeIfChanged();
            }
        } catch (IOException e) {
            // The log itself is durable; only a later crash recovery would scan further back.
            LOG.warn("could not write the checkpoint {}: {}", checkpoint.file(), e.toString());
        }
    }

    // ---- put path ---------------------------------------------------------------------------------

    /** Appends one message; the future completes when its flush (and replica) requirement is met. */
    public CompletableFuture<PutMessageResult> asyncPutMessage(BrokerMessage msg) {
        if (config.enabledAppendPropCRC()) {
            INTERNALS.withRecordCrc(msg);
        }
        MessageViolation violation = MessageRecordEncoder.validate(msg, maxMessageSize, fileSize);
        if (violation != MessageViolation.NONE) {
            return rejected(statusOf(violation));
        }
        return put(msg, null, msg, msg.recordLength(), 1);
    }

    /**
     * Appends a batch for one (topic, queueId) as consecutive records with consecutive queue offsets,
     * all in one file. An empty batch, or one mixing queues, is MESSAGE_ILLEGAL.
     */
    public CompletableFuture<PutMessageResult> asyncPutMessages(List<BrokerMessage> batch) {
        if (batch == null || batch.isEmpty()) {
            return rejected(PutMessageStatus.MESSAGE_ILLEGAL);
        }
        BrokerMessage first = batch.get(0);
        for (BrokerMessage m : batch) {
            if (m.queueId() != first.queueId() || !m.topic().equals(first.topic())) {
                return rejected(PutMessageStatus.MESSAGE_ILLEGAL);
            }
            if (config.enabledAppendPropCRC()) {
                INTERNALS.withRecordCrc(m);
            }
        }
        MessageViolation violation = MessageRecordEncoder.validateBatch(batch, maxMessageSize, fileSize);
        if (violation != MessageViolation.NONE) {
            return rejected(statusOf(violation));
        }
        return put(null, batch, first, MessageRecordEncoder.batchLength(batch), batch.size());
    }

    private static PutMessageStatus statusOf(MessageViolation violation) {
        return violation.isPropertiesSizeExceeded()
            ? PutMessageStatus.PROPERTIES_SIZE_EXCEEDED
            : PutMessageStatus.MESSAGE_ILLEGAL;
    }

    private CompletableFuture<PutMessageResult> put(BrokerMessage single, List<BrokerMessage> batch,
                                                    BrokerMessage first, int length, int count) {
        if (state != State.RUNNING || failStop.failed()) {
            return rejected(PutMessageStatus.SERVICE_NOT_AVAILABLE);
        }
        if (putLock.isBusy(clockMs.getAsLong(), busyTimeoutMs)) {
            return rejected(PutMessageStatus.OS_PAGE_CACHE_BUSY);
        }
        // read once: the wait that admits a put is the one that answers it (a role change installs another meanwhile)
        ReplicaWait replica = replicaWait;
        PutMessageStatus notAdmitted = replica.admit(first);
        if (notAdmitted != null) {
            return rejected(notAdmitted);
        }
        String queueKey = QueueOffsetTable.key(first.topic(), first.queueId());
        long physicalOffset;
        long queueOffset;
        long storeTimestamp;
        long lockedMs;
        PutMessageStatus refused = null;
        if (!putLock.tryLock(busyTimeoutMs, clockMs)) {
            return rejected(PutMessageStatus.OS_PAGE_CACHE_BUSY);
        }
        try {
            storeTimestamp = clockMs.getAsLong();
            if (state != State.RUNNING || failStop.failed()) {
                return rejected(PutMessageStatus.SERVICE_NOT_AVAILABLE);
            }
            QueueOffsetTable.Counter counter = queueOffsets.counter(queueKey);
            // RocketMQ's rule: a prepared or rolled-back record takes no place in its queue (queue offset 0, no
            // consume-queue unit), so it leaves no hole the dispatcher would have to rewind over
            boolean takesQueueOffset = takesQueueOffset(first.sysFlag());
            queueOffset = takesQueueOffset ? counter.next : 0;
            appender.prepare(single, batch, length, queueOffset, storeTimestamp);
            MappedFile file = lastFileOrCreate();
            if (file == null) {
                refused = PutMessageStatus.CREATE_MAPPED_FILE_FAILED;
            } else {
                file.append(appender);
                if (appender.endOfFile) {
                    // The record did not fit behind the last one: the rest of that file is now the
                    // END_OF_FILE marker and the record starts the next file.
                    file = lastFileOrCreate();
                    if (file == null) {
                        refused = PutMessageStatus.CREATE_MAPPED_FILE_FAILED;
                    } else {
                        file.append(appender);
                    }
                }
            }
            if (refused == null) {
                if (appender.endOfFile) {
                    throw new IllegalStateException("a validated record of " + length + " bytes does not fit in "
                        + "a new file of " + fileSize);
                }
                file.storeTimestamp(storeTimestamp);
                if (takesQueueOffset) {
                    counter.next = queueOffset + count;
                }
            }
            physicalOffset = appender.physicalOffset;
            lockedMs = clockMs.getAsLong() - storeTimestamp;
        } catch (RuntimeException e) {
            LOG.error("CommitLog append failed unexpectedly for topic {}", first.topic(), e);
            return rejected(PutMessageStatus.UNKNOWN_ERROR);
        } finally {
            appender.clear();
            putLock.unlock();
        }
        if (refused != null) {
            return rejected(refused);
        }
        if (lockedMs > PUT_IN_LOCK_WARN_MS) {
            LOG.warn("putMessage in lock cost time {} ms, topic {}, bodies {} bytes", lockedMs, first.topic(), length);
        }
        AppendMessageResult result = new AppendMessageResult(physicalOffset, length, queueOffset, count, storeTimestamp);
        afterAppend();
        return awaitDurability(first, result, replica);
    }

    /** Whether a record of this sysFlag is given the next offset of its queue: all but PREPARED (0x4) and ROLLBACK (0xC). */
    static boolean takesQueueOffset(int sysFlag) {
        int type = sysFlag & RecordFormat.TRANSACTION_TYPE_MASK;
        return type != 0x4 && type != 0xC;
    }

    /** The file to append to; null (CREATE_MAPPED_FILE_FAILED) when it could not be created. */
    private MappedFile lastFileOrCreate() {
        try {
            return files.lastFileOrCreate(0);
        } catch (IOException e) {
            LOG.error("create mapped file failed in {}: {}", files.dir(), e.toString());
            return null;
        }
    }

    private void afterAppend() {
        if (!writeBuffered) {
            // with a write buffer, readers are told after the commit (CommitLogFlushTarget)
            notifyAppended();
        }
        flushPolicy.afterAppend();
    }

    private CompletableFuture<PutMessageResult> awaitDurability(BrokerMessage msg, AppendMessageResult result,
                                                                ReplicaWait replica) {
        CompletableFuture<PutMessageStatus> flushed;
        CompletableFuture<GroupCommitRequest.Outcome> diskWait = flushPolicy.await(result.nextOffset(),
            msg.waitStoreMsgOk());
        if (diskWait != null) {
            flushed = diskWait.thenApply(outcome -> outcome == GroupCommitRequest.Outcome.FLUSHED
                ? PutMessageStatus.PUT_OK
                : PutMessageStatus.FLUSH_DISK_TIMEOUT);
        } else {
            if (replica == ReplicaWait.NONE) {
                return CompletableFuture.completedFuture(new PutMessageResult(PutMessageStatus.PUT_OK, result));
            }
            flushed = CompletableFuture.completedFuture(PutMessageStatus.PUT_OK);
        }
        if (replica != ReplicaWait.NONE) {
            flushed = flushed.thenCombine(replica.await(msg, result),
                (flush, ha) -> flush != PutMessageStatus.PUT_OK ? flush : ha);
        }
        return flushed.thenApply(status -> new PutMessageResult(status, result));
    }

    private static CompletableFuture<PutMessageResult> rejected(PutMessageStatus status) {
        return CompletableFuture.completedFuture(PutMessageResult.rejected(status));
    }

    private void notifyAppended() {
        if (appendListeners.isEmpty()) {
            return;
        }
        long max = files.maxOffset();
        for (AppendListener listener : appendListeners) {
            listener.onAppend(max);
        }
    }

    // ---- replication (slave side) -----------------------------------------------------------------

    /**
     * Slave replication: appends {@code data}'s remaining bytes, raw, at exactly
     * {@code physicalOffset}, which must be the log's current end (or, for an empty log, the start of
     * a file). A chunk never spans two files. Serialised with puts by the put lock.
     */
    public ReplicaAppend appendReplicated(long physicalOffset, ByteBuffer data) {
        if (state != State.RUNNING || failStop.failed()) {
            return ReplicaAppend.NOT_WRITABLE;
        }
        if (!putLock.tryLock(Long.MAX_VALUE, clockMs)) {
            return ReplicaAppend.NOT_WRITABLE;
        }
        try {
            if (state != State.RUNNING) {
                return ReplicaAppend.NOT_WRITABLE;
            }
            MappedFile last = files.lastFile();
            if (last != null && physicalOffset != last.fileFromOffset() && physicalOffset % fileSize == 0
                && files.holdsNoBytes()) {
                // an empty slave starting at its master's oldest retained offset, beyond this log's first file
                files.restartEmptyAt(physicalOffset);
                last = null;
            }
            long end = last == null ? physicalOffset : files.appendedOffset();
            if (physicalOffset != end || (last == null && physicalOffset % fileSize != 0)) {
                return ReplicaAppend.OFFSET_MISMATCH;
            }
            if (physicalOffset % fileSize + data.remaining() > fileSize) {
                return ReplicaAppend.CROSSES_FILE;
            }
            MappedFile file;
            try {
                file = files.lastFileOrCreate(physicalOffset);
            } catch (IOException e) {
                LOG.error("create mapped file failed in {}: {}", files.dir(), e.toString());
                return ReplicaAppend.NOT_WRITABLE;
            }
            if (file.fileFromOffset() + file.wrotePosition() != physicalOffset || !file.appendRaw(data)) {
                return ReplicaAppend.OFFSET_MISMATCH;
            }
            file.storeTimestamp(clockMs.getAsLong());
        } finally {
            putLock.unlock();
        }
        afterAppend();
        return ReplicaAppend.APPENDED;
    }

    /**
     * Slave replication: cuts the log back to {@code physicalOffset} (a divergent tail after a master
     * change). Zeroes the rest of that file, deletes later files and lowers the flushed position.
     * Serialised with puts by the put lock; readers of the cut range get null from {@link #select}.
     */
    public void truncateTo(long physicalOffset) throws IOException {
        if (!putLock.tryLock(Long.MAX_VALUE, clockMs)) {
            throw new IOException("interrupted while truncating the CommitLog");
        }
        try {
            long before = files.appendedOffset();
            files.truncateDirtyFiles(physicalOffset);
            checkpoint.physicRecoveryOffset(Math.min(flushedOffset(), physicalOffset));
            LOG.warn("CommitLog truncated from {} to {} ({} bytes cut)", before, physicalOffset, before - physicalOffset);
        } finally {
            putLock.unlock();
        }
    }

    /**
     * A topic deletion: forgets the queue-offset counters of {@code topics} under the put lock and
     * returns the end of what was appended then. Every record of those topics below the returned
     * offset belongs to the deleted topic; any record at or after it was numbered from 0 again.
     */
    public long retireQueueOffsets(Set<String> topics) throws IOException {
        if (!putLock.tryLock(Long.MAX_VALUE, clockMs)) {
            throw new IOException("interrupted while deleting topics " + topics);
        }
        try {
            for (String topic : topics) {
                queueOffsets.removeTopic(topic);
            }
            return files.appendedOffset();
        } finally {
            putLock.unlock();
        }
    }

    // ---- hooks ------------------------------------------------------------------------------------

    /** Registers a listener told whenever new bytes become readable (the dispatcher's wakeup). */
    public void addAppendListener(AppendListener listener) {
        appendListeners.add(listener);
    }

    /** Removes a listener added with {@link #addAppendListener}; no effect when absent. */
    public void removeAppendListener(AppendListener listener) {
        appendListeners.remove(listener);
    }

    /** Installs the replication wait that composes with the flush wait (HA); {@link ReplicaWait#NONE} removes it. */
    public void setReplicaWait(ReplicaWait wait) {
        this.replicaWait = wait == null ? ReplicaWait.NONE : wait;
    }

    /**
     * The store's checkpoint (one object per file): the CommitLog sets the recovery point after each
     * force and writes it every {@code flushCommitLogThoroughInterval} ms; the queue flusher sets its
     * timestamps; the owner writes it last at shutdown.
     */
    public StoreCheckpoint checkpoint() {
        return checkpoint;
    }

    /** Tells {@code observer} of each force of this log (flush latency and group size metrics). */
    public void setFlushObserver(FlushObserver observer) {
        flushPolicy.setObserver(observer);
    }

    /** The per-queue offset counters (set from the consume queues at startup). */
    public QueueOffsetTable queueOffsets() {
        return queueOffsets;
    }

    // ---- reads and offsets -----------------------------------------------------------------------

    /**
     * A read-only, reference-counted view of {@code [offset, offset + size)}, or null if that range is
     * not entirely readable in one file. Release it when done.
     */
    public SelectedBuffer select(long offset, int size) {
        MappedFile file = files.findFileByOffset(offset, false);
        if (file == null) {
            return null;
        }
        return file.select((int) (offset - file.fileFromOffset()), size);
    }

    /** A view from {@code offset} to the readable end of its file, or null. Release it when done. */
    public SelectedBuffer select(long offset) {
        MappedFile file = files.findFileByOffset(offset, false);
        if (file == null) {
            return null;
        }
        return file.select((int) (offset - file.fileFromOffset()));
    }

    /** Offset of the first byte still stored (0 when there is no file). */
    public long minOffset() {
        long min = files.minOffset();
        return Math.max(min, 0);
    }

    /** End of what readers may see (committed bytes with a transient store pool). */
    public long maxOffset() {
        return files.maxOffset();
    }

    /** End of what force() made durable. */
    public long flushedOffset() {
        return flushTarget.flushedOffset();
    }

    /** End of what was written to the files (page cache). */
    public long committedOffset() {
        return flushTarget.committedOffset();
    }

    /** Start of the file after the one holding {@code offset} (readers skipping an END_OF_FILE marker). */
    public long rollNextFile(long offset) {
        return offset + fileSize - offset % fileSize;
    }

    public int fileSize() {
        return fileSize;
    }

    /**
     * Retention: deletes, oldest first, files last modified at least {@code expiredMillis} ago (all but
     * the newest when {@code cleanImmediately}); never the newest file and never one a reader holds.
     * See {@link MappedFileQueue#deleteExpiredFilesByTime}. Returns the number of files deleted.
     */
    public int deleteExpiredFiles(long expiredMillis, long intervalMs, long destroyWaitMs, boolean cleanImmediately) {
        return files.deleteExpiredFilesByTime(expiredMillis, intervalMs, destroyWaitMs, cleanImmediately);
    }

    /** As {@link #deleteExpiredFiles(long, long, long, boolean)}; {@code whyEarly} goes in the WARN line of each unexpired file deleted. */
    public int deleteExpiredFiles(long expiredMillis, long intervalMs, long destroyWaitMs, boolean cleanImmediately,
                                  String whyEarly) {
        return files.deleteExpiredFilesByTime(expiredMillis, intervalMs, destroyWaitMs, cleanImmediately, whyEarly);
    }

    /** CommitLog files deleted before fileReservedTime (a forced clean under disk pressure) since start. */
    public long filesDeletedBeforeExpiry() {
        return files.deletedBeforeExpiry();
    }

    /** False once shut down or after a write failure (puts then get SERVICE_NOT_AVAILABLE). */
    public boolean isWritable() {
        return state == State.RUNNING && !failStop.failed();
    }

    /** The write-failure latch (read-only state), for the store facade and metrics. */
    public FailStop failStop() {
        return failStop;
    }

    /** How long the current put lock holder has held it, 0 when free (a metric). */
    public long putLockHeldMs() {
        return putLock.heldMs(clockMs.getAsLong());
    }

    /** SYNC_FLUSH: force() rounds of the group commit so far (0 under ASYNC_FLUSH); a metric. */
    public long groupCommitForces() {
        return flushPolicy.forceCount();
    }

    /** SYNC_FLUSH: waiting puts completed by the group commit so far; with {@link #groupCommitForces()}
     *  it gives the average group size. */
    public long groupCommitRequests() {
        return flushPolicy.flushedRequestCount();
    }

    /**
     * How far the dispatcher may read while the store runs: the flushed offset under SYNC_FLUSH, the
     * readable end under ASYNC_FLUSH (see {@link FlushPolicy#dispatchLimit()}).
     */
    public long dispatchLimit() {
        return flushPolicy.dispatchLimit();
    }

    /** The CommitLog's service threads: the flush policy's and the file allocator (error metrics). */
    public List<ServiceThread> services() {
        List<ServiceThread> all = new ArrayList<>(flushPolicy.services());
        all.add(allocator);
        return List.copyOf(all);
    }

    PutMessageLock putLock() {
        return putLock;
    }

    MappedFileQueue files() {
        return files;
    }
}
