package io.basalt.store.mappedfile;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jctools.queues.MpscUnboundedArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.store.FlushDiskType;
import io.basalt.common.service.ErrorPolicy;
import io.basalt.common.service.ServiceThread;

/**
 * Creates CommitLog files ahead of the writer. {@link #allocate(Path, Path, int)} asks for file N and
 * N+1; this thread creates (allocates, maps, borrows a transient-pool buffer for, and warms) them in
 * request order, so in steady state N was already created when the previous file filled up and the
 * writer never waits for a file to be made. With warm-up on, it also moves the warm window of the file
 * being written ({@link MappedFile#keepWarm()}), so only the pages the writer is about to touch are
 * faulted in and locked. Once a second it also gives back the pages readers faulted in behind the
 * writer ({@link #giveBackReadPagesOf(MappedFileQueue)}), so the log's resident pages stay about the
 * writer's windows however much of it consumers read.
 *
 * <p>Requests are keyed by path: asking again for a file already requested waits for the same one.
 * A failure (a full disk, say) is logged on this thread and fails that request; the next ask
 * retries. Resilient ({@link ErrorPolicy#resilient()}): an unexpected error of a round is counted and
 * logged and the next round goes on, since every waiting writer has its own timeout and retries.
 * Callers: the CommitLog writer; the service runs on its own thread.
 */
public final class AllocateMappedFileService extends ServiceThread {
    private static final Logger LOG = LoggerFactory.getLogger(AllocateMappedFileService.class);
    static final long DEFAULT_WAIT_TIMEOUT_MS = 5000;

    private final FlushDiskType flushDiskType;
    private final boolean warmMappedFileEnable;
    private final int flushLeastPagesWhenWarmMappedFile;
    private final TransientStorePool transientStorePool;
    private final long waitTimeoutMs;
    private final ConcurrentHashMap<Path, AllocateRequest> requests = new ConcurrentHashMap<>();
    private final MpscUnboundedArrayQueue<AllocateRequest> queue = new MpscUnboundedArrayQueue<>(64);
    private boolean poolEmptyWarned;
    /** The file last handed to the writer: the one whose warm window this thread moves. */
    private volatile MappedFile writing;
    /** The queue whose read pages this thread gives back, or null. */
    private volatile MappedFileQueue readPagesOf;
    private long nextReadPagesGiveBackNs = System.nanoTime();

    /**
     * @param warmMappedFileEnable            {@code warmMapedFileEnable} (Basalt default true)
     * @param flushLeastPagesWhenWarmMappedFile {@code flushLeastPagesWhenWarmMapedFile} (4096): while a new
     *                                        file is zero-filled in SYNC_FLUSH mode with warmup on, it
     *                                        is forced every this many pages
     * @param transientStorePoolOrNull        write buffers for new files, or null
     */
    public AllocateMappedFileService(FlushDiskType flushDiskType, boolean warmMappedFileEnable,
                                     int flushLeastPagesWhenWarmMappedFile, TransientStorePool transientStorePoolOrNull) {
        this(flushDiskType, warmMappedFileEnable, flushLeastPagesWhenWarmMappedFile, transientStorePoolOrNull,
            DEFAULT_WAIT_TIMEOUT_MS);
    }

    AllocateMappedFileService(FlushDiskType flushDiskType, boolean warmMappedFileEnable,
                              int flushLeastPagesWhenWarmMappedFile, TransientStorePool transientStorePoolOrNull,
                              long waitTimeoutMs) {
        super("AllocateMappedFileService", ErrorPolicy.resilient());
        this.flushDiskType = flushDiskType;
        this.warmMappedFileEnable = warmMappedFileEnable;
        this.flushLeastPagesWhenWarmMappedFile = flushLeastPagesWhenWarmMappedFile;
        this.transientStorePool = transientStorePoolOrNull;
        this.waitTimeoutMs = waitTimeoutMs;
    }

    /**
     * Returns file {@code next}, creating it if needed, and queues {@code nextNext} for creation in
     * the background. Waits up to 5 s; throws an IOException saying why when the file could not be
     * made in time (callers report CREATE_MAPPED_FILE_FAILED).
     */
    public MappedFile allocate(Path next, Path nextNext, int fileSize) throws IOException {
        if (isStopped()) {
            throw new IOException("cannot create " + next + ": AllocateMappedFileService is stopped");
        }
        AllocateRequest request = submit(next, fileSize);
        submit(nextNext, fileSize);
        wakeup();
        try {
            MappedFile file = request.future.get(waitTimeoutMs, TimeUnit.MILLISECONDS);
            requests.remove(next, request);
            writing = file;
            return file;
        } catch (TimeoutException e) {
            throw new IOException("create mapped file " + next + " timed out after " + waitTimeoutMs + " ms");
        } catch (ExecutionException e) {
            requests.remove(next, request);
            throw new IOException("create mapped file " + next + " failed: " + e.getCause().getMessage(),
                e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for " + next, e);
        }
    }

    /**
     * After a restart the writer goes on in {@code file}, a file loaded rather than created here: this thread moves
     * its warm window from the writer's position on (with warm-up on), and creates the next file, {@code next}, ahead
     * of need, as after any roll, so the first roll after a restart does not wait for a file to be made.
     */
    public void resumeWriting(MappedFile file, Path next) {
        writing = file;
        submit(next, file.fileSize());
        wakeup();
    }

    private AllocateRequest submit(Path path, int fileSize) {
        AllocateRequest fresh = new AllocateRequest(path, fileSize);
        AllocateRequest existing = requests.putIfAbsent(path, fresh);
        if (existing != null) {
            return existing;
        }
        queue.offer(fresh);
        return fresh;
    }

    /**
     * Cancels every request and deletes the files created ahead of need that were never handed out:
     * the queue they were meant for has moved its start ({@link MappedFileQueue#restartEmptyAt}).
     * Writer thread only.
     */
    public void discardUnclaimed() {
        for (AllocateRequest request : requests.values()) {
            if (!request.future.completeExceptionally(new IOException("discarded: the queue moved its start"))) {
                MappedFile file = request.future.getNow(null);
                if (file != null) {
                    file.destroy(1000);
                }
            }
        }
        requests.clear();
    }

    /**
     * Gives back, every {@link #GIVE_BACK_READ_PAGES_INTERVAL_MS}, the pages readers faulted in to the files of
     * {@code queue} ({@link MappedFileQueue#giveBackReadPages()}); the CommitLog names its queue once.
     */
    public void giveBackReadPagesOf(MappedFileQueue queue) {
        readPagesOf = queue;
    }

    /** True while {@code path} has been requested and not yet handed out. */
    boolean isRequested(Path path) {
        return requests.containsKey(path);
    }

    @Override
    protected int doWork() {
        AllocateRequest request = queue.poll();
        if (request == null) {
            if (warmMappedFileEnable) {
                MappedFile file = writing;
                if (file != null) {
                    // a file the writer resumed after a restart was never warmed: its window starts at the writer
                    file.warmFrom(file.wrotePosition());
                    file.keepWarm();
                }
            }
            giveBackReadPagesWhenDue();
            return 0;
        }
        if (requests.get(request.path) != request || request.future.isDone()) {
            return 1;
        }
        try {
            MappedFile file = create(request);
            if (!request.future.complete(file)) {
                // discarded while it was being created
                file.destroy(1000);
            }
        } catch (IOException | RuntimeException e) {
            LOG.error("AllocateMappedFileService: creating {} ({} bytes) failed: {}", request.path, request.fileSize,
                e.toString());
            request.future.completeExceptionally(e);
            requests.remove(request.path, request);
        }
        return 1;
    }

    private void giveBackReadPagesWhenDue() {
        MappedFileQueue queue = readPagesOf;
        long now = System.nanoTime();
        if (queue != null && now - nextReadPagesGiveBackNs >= 0) {
            nextReadPagesGiveBackNs = now + TimeUnit.MILLISECONDS.toNanos(GIVE_BACK_READ_PAGES_INTERVAL_MS);
            queue.giveBackReadPages();
        }
    }

    private MappedFile create(AllocateRequest request) throws IOException {
        long startNs = System.nanoTime();
        ByteBuffer writeBuffer = borrowWriteBuffer(request);
        int forceEveryPages = warmMappedFileEnable && flushDiskType == FlushDiskType.SYNC_FLUSH
            ? flushLeastPagesWhenWarmMappedFile : 0;
        MappedFile file;
        try {
            file = MappedFile.open(request.path, request.fileSize, writeBuffer,
                writeBuffer == null ? null : transientStorePool::returnBuffer,
                MappedFile.Allocation.forFlushDiskType(flushDiskType), forceEveryPages);
        } catch (IOException | RuntimeException e) {
            if (writeBuffer != null) {
                transientStorePool.returnBuffer(writeBuffer);
            }
            throw e;
        }
        if (warmMappedFileEnable) {
            file.warm();
        }
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
        if (elapsedMs > 10) {
            LOG.info("created {} in {} ms (queued requests: {})", request.path, elapsedMs, queue.size());
        }
        return file;
    }

    /** A pool buffer for the file, or null: never blocks the writer waiting for one. */
    private ByteBuffer borrowWriteBuffer(AllocateRequest request) {
        if (transientStorePool == null || request.fileSize > transientStorePool.fileSize()) {
            return null;
        }
        ByteBuffer buffer = transientStorePool.borrowBuffer();
        if (buffer == null) {
            if (!poolEmptyWarned) {
                poolEmptyWarned = true;
                LOG.warn("TransientStorePool has no free buffer: {} and later files are plain mapped files until "
                    + "one is returned", request.path);
            }
        } else {
            poolEmptyWarned = false;
        }
        return buffer;
    }

    /**
     * With warm-up on, how often the window of the file being written moves ({@link MappedFile#keepWarm()}):
     * a writer at 200 MiB/s covers 10 MiB between two looks, well inside half a window.
     */
    static final long KEEP_WARM_INTERVAL_MS = 50;

    /**
     * How often the pages readers faulted in are given back: a consumer catching up at 200 MiB/s maps
     * about that much between two looks. Each look is one madvise per file a reader selected from.
     */
    static final long GIVE_BACK_READ_PAGES_INTERVAL_MS = 1000;

    @Override
    protected long idleWaitMs() {
        return warmMappedFileEnable ? KEEP_WARM_INTERVAL_MS : 1000;
    }

    /** Fails waiting callers and closes files created but never handed out (they stay on disk). */
    @Override
    protected void onShutdown() {
        writing = null;
        for (AllocateRequest request : requests.values()) {
            boolean failed = request.future.completeExceptionally(new IOException("AllocateMappedFileService stopped"));
            if (!failed && !request.future.isCompletedExceptionally()) {
                request.future.join().close();
            }
        }
        requests.clear();
        queue.clear();
    }

    private static final class AllocateRequest {
        final Path path;
        final int fileSize;
        final CompletableFuture<MappedFile> future = new CompletableFuture<>();

        AllocateRequest(Path path, int fileSize) {
            this.path = path;
            this.fileSize = fileSize;
        }
    }
}
