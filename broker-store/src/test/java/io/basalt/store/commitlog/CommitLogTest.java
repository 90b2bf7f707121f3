package io.basalt.store.commitlog;

import io.basalt.store.AppendMessageResult;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.PutMessageResult;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.StoredMessage;
import io.basalt.store.spi.ReplicaAppend;
import io.basalt.store.spi.ReplicaWait;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.basalt.store.FlushDiskType;
import io.basalt.store.StoreConfig;
import io.basalt.store.StoreException;
import io.basalt.store.flush.FailStop;
import io.basalt.store.flush.FlushTarget;
import io.basalt.store.flush.ForwardingFlushTarget;
import io.basalt.store.mappedfile.MappedFile;
import io.basalt.store.SelectedBuffer;
import io.basalt.store.mappedfile.StoreFiles;

class CommitLogTest {
    private static final int FILE_SIZE = 1024 * 1024;
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String TOPIC = "TopicTest";
    /** Record bytes besides body and topic for IPv4 hosts and no properties. */
    private static final int RECORD_OVERHEAD = 91;

    @TempDir
    Path dir;

    private final List<CommitLog> opened = new ArrayList<>();

    @AfterEach
    void closeAll() {
        for (CommitLog log : opened) {
            log.shutdown();
        }
        assertEquals(0, MappedFile.liveMappings(), "every mapping is released");
        // A pool thread may still be exiting right after its executor terminated.
        await().atMost(WAIT).untilAsserted(() -> {
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                String name = t.getName();
                assertFalse(t.isAlive() && (name.equals("GroupCommitService") || name.equals("FlushRealTimeService")
                    || name.equals("CommitRealTimeService") || name.equals("FlushDiskWatcher")
                    || name.equals("FlushAckThread") || name.equals("AllocateMappedFileService")),
                    "thread left behind: " + name);
            }
        });
    }

    private StoreConfig.Builder config(FlushDiskType type) {
        return StoreConfig.builder()
            .storePathRootDir(dir.toString())
            .mappedFileSizeCommitLog(FILE_SIZE)
            .flushDiskType(type)
            .warmMapedFileEnable(false)
            .transientStorePoolSize(3)
            .maxMessageSize(256 * 1024);
    }

    private CommitLog start(StoreConfig config) throws IOException {
        return start(config, System::currentTimeMillis, UnaryOperator.identity());
    }

    private CommitLog start(StoreConfig config, java.util.function.LongSupplier clock,
                            UnaryOperator<FlushTarget> flushPath) throws IOException {
        CommitLog log = CommitLog.open(config, clock, flushPath);
        opened.add(log);
        log.load();
        log.start();
        return log;
    }

    private static BrokerMessage message(int queueId, int recordLength) {
        int bodyLength = recordLength - RECORD_OVERHEAD - TOPIC.length();
        byte[] body = new byte[bodyLength];
        Arrays.fill(body, (byte) ('a' + queueId % 26));
        return BrokerMessage.builder().topic(TOPIC).queueId(queueId).body(body).bornTimestamp(1).build();
    }

    private static PutMessageResult put(CommitLog log, BrokerMessage m) {
        return log.asyncPutMessage(m).join();
    }

    private static StoredMessage read(CommitLog log, AppendMessageResult r) {
        try (SelectedBuffer selected = log.select(r.physicalOffset(), r.wroteBytes())) {
            assertNotNull(selected, "record at " + r.physicalOffset() + " is readable");
            return MessageRecordDecoder.decode(selected.buffer());
        }
    }

    @Test
    void anEmptyReplicaStartsAtTheFileItIsSentAndReopensThere() throws IOException {
        CommitLog master = start(config(FlushDiskType.ASYNC_FLUSH).storePathRootDir(dir.resolve("master").toString()).build());
        long third = 2L * FILE_SIZE;
        while (master.maxOffset() < third + 4096) {
            put(master, message(0, 4000));
        }
        byte[] chunk = new byte[4000];
        try (SelectedBuffer selected = master.select(third, chunk.length)) {
            selected.buffer().get(chunk);
        }
        StoreConfig replicaConfig = config(FlushDiskType.ASYNC_FLUSH).storePathRootDir(dir.resolve("replica").toString()).build();
        CommitLog replica = start(replicaConfig);
        put(replica, message(0, 200));
        assertEquals(ReplicaAppend.OFFSET_MISMATCH, replica.appendReplicated(third, ByteBuffer.wrap(chunk)),
            "a log that holds bytes never jumps");
        replica.shutdown();
        opened.remove(replica);
        deleteTree(dir.resolve("replica"));

        replica = start(replicaConfig);
        assertEquals(ReplicaAppend.OFFSET_MISMATCH, replica.appendReplicated(third + 100, ByteBuffer.wrap(chunk)),
            "only a file start begins an empty log");
        assertEquals(ReplicaAppend.APPENDED, replica.appendReplicated(third, ByteBuffer.wrap(chunk)));
        assertEquals(third, replica.minOffset());
        assertEquals(third + chunk.length, replica.maxOffset());
        replica.shutdown();
        opened.remove(replica);
        try (var names = Files.list(replicaConfig.commitLogDir())) {
            assertTrue(names.allMatch(f -> StoreFiles.parseFileName(f.getFileName().toString()) >= third),
                "no file is left before the new start (none made ahead of need either)");
        }

        CommitLog reopened = start(replicaConfig);
        assertEquals(third, reopened.minOffset());
        assertEquals(third + chunk.length, reopened.maxOffset());
    }

    private static void deleteTree(Path root) throws IOException {
        try (var paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Test
    void rollsOverWithEndOfFileMarkerAtExactBoundaries() throws IOException {
        CommitLog log = start(config(FlushDiskType.ASYNC_FLUSH).build());
        // Fill the first file up to exactly 8 bytes before its end: the record fits, the marker too.
        int chunk = 64 * 1024;
        long offset = 0;
        while (FILE_SIZE - offset - 8 > chunk + 1000) {
            offset = put(log, message(0, chunk)).appendResult().nextOffset();
        }
        int exact = (int) (FILE_SIZE - offset - 8);
        AppendMessageResult last = put(log, message(0, exact)).appendResult();
        assertEquals(offset, last.physicalOffset());
        assertEquals(FILE_SIZE - 8, last.nextOffset());

        // The next record, however small, does not fit: an 8-byte END_OF_FILE marker ends the file.
        AppendMessageResult next = put(log, message(0, 200)).appendResult();
        assertEquals(FILE_SIZE, next.physicalOffset());
        assertEndOfFile(log, FILE_SIZE - 8, 8);

        // In the second file leave 7 bytes too few for the marker: the record goes to the third file.
        offset = next.nextOffset();
        while (2L * FILE_SIZE - offset - 8 > chunk + 1000) {
            offset = put(log, message(1, chunk)).appendResult().nextOffset();
        }
        int tooLong = (int) (2L * FILE_SIZE - offset - 7);
        AppendMessageResult third = put(log, message(1, tooLong)).appendResult();
        assertEquals(2L * FILE_SIZE, third.physicalOffset());
        assertEndOfFile(log, offset, (int) (2L * FILE_SIZE - offset));

        assertEquals(tooLong, read(log, third).storeSize());
        assertEquals(2L * FILE_SIZE, read(log, third).physicalOffset());
        assertEquals(3, log.files().files().size());
        assertEquals(log.rollNextFile(offset), third.physicalOffset());
    }

    private static void assertEndOfFile(CommitLog log, long offset, int length) {
        try (SelectedBuffer marker = log.select(offset, 8)) {
            assertNotNull(marker);
            ByteBuffer b = marker.buffer();
            assertEquals(length, b.getInt(0));
            assertEquals(RecordFormat.BLANK_MAGIC_CODE, b.getInt(4));
        }
    }

    @Test
    void concurrentAppendersGetUniqueGapFreeQueueOffsetsAndContiguousPhysicalOffsets() throws Exception {
        // A generous busy threshold: this test is about offsets, and on a loaded machine one put may wait
        // long under the lock for the next file; OS_PAGE_CACHE_BUSY has tests of its own.
        CommitLog log = start(config(FlushDiskType.ASYNC_FLUSH).osPageCacheBusyTimeOutMills(30_000).build());
        int threads = 8;
        int perThread = 600;
        CyclicBarrier barrier = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<List<AppendMessageResult>>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int seed = t;
            futures.add(pool.submit(() -> {
                barrier.await();
                List<AppendMessageResult> mine = new ArrayList<>();
                for (int i = 0; i < perThread; i++) {
                    int queueId = (seed + i) % 3;
                    PutMessageResult r = put(log, message(queueId, 300 + (i * 37 + seed) % 400));
                    assertEquals(PutMessageStatus.PUT_OK, r.status());
                    mine.add(r.appendResult());
                }
                return mine;
            }));
        }
        List<AppendMessageResult> all = new ArrayList<>();
        for (Future<List<AppendMessageResult>> f : futures) {
            all.addAll(f.get(60, TimeUnit.SECONDS));
        }
        pool.shutdown();
        assertEquals(threads * perThread, all.size());

        // Physical offsets: contiguous, except the jump over an END_OF_FILE marker to the next file.
        all.sort(Comparator.comparingLong(AppendMessageResult::physicalOffset));
        assertEquals(0, all.get(0).physicalOffset());
        for (int i = 1; i < all.size(); i++) {
            long end = all.get(i - 1).nextOffset();
            long start = all.get(i).physicalOffset();
            assertTrue(start == end || (start == log.rollNextFile(end) && start % FILE_SIZE == 0),
                "gap between " + end + " and " + start);
        }
        assertTrue(all.get(all.size() - 1).nextOffset() > 2L * FILE_SIZE, "the test crosses files");

        // Queue offsets: per queue exactly 0..n-1, increasing in append (physical) order.
        Map<Integer, List<Long>> byQueue = new HashMap<>();
        for (AppendMessageResult r : all) {
            StoredMessage stored = read(log, r);
            assertEquals(r.queueOffset(), stored.queueOffset());
            assertEquals(r.physicalOffset(), stored.physicalOffset());
            byQueue.computeIfAbsent(stored.queueId(), q -> new ArrayList<>()).add(r.queueOffset());
        }
        for (Map.Entry<Integer, List<Long>> e : byQueue.entrySet()) {
            List<Long> offsets = e.getValue();
            for (int i = 0; i < offsets.size(); i++) {
                assertEquals(i, offsets.get(i), "queue " + e.getKey() + " offset at append #" + i);
            }
            assertEquals(offsets.size(), log.queueOffsets().nextOffset(TOPIC, e.getKey()));
        }
    }

    /** A flush path whose force can be held back on a latch or made to fail. */
    static final class HookedFlushTarget extends ForwardingFlushTarget {
        volatile CountDownLatch hold;
        volatile IOException failure;
        volatile IOException commitFailure;
        volatile boolean inForce;

        HookedFlushTarget(FlushTarget delegate) {
            super(delegate);
        }

        @Override
        public long commit(int leastPages) throws IOException {
            IOException e = commitFailure;
            if (e != null && delegate.appendedOffset() > delegate.committedOffset()) {
                throw e;
            }
            return delegate.commit(leastPages);
        }

        @Override
        public long flush(int leastPages) throws IOException {
            if (delegate.committedOffset() > delegate.flushedOffset()) {
                inForce = true;
                try {
                    CountDownLatch latch = hold;
                    if (latch != null) {
                        latch.await();
                    }
                    if (failure != null) {
                        throw failure;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                } finally {
                    inForce = false;
                }
            }
            return delegate.flush(leastPages);
        }
    }

    private HookedFlushTarget hooked;

    private CommitLog startHooked(StoreConfig config) throws IOException {
        return start(config, System::currentTimeMillis, target -> hooked = new HookedFlushTarget(target));
    }

    @ParameterizedTest
    @CsvSource({"false", "true"})
    void syncFlushFutureCompletesOnlyAfterForce(boolean transientStorePool) throws IOException {
        CommitLog log = startHooked(config(FlushDiskType.SYNC_FLUSH).transientStorePoolEnable(transientStorePool).build());
        hooked.hold = new CountDownLatch(1);
        List<CompletableFuture<PutMessageResult>> futures = new ArrayList<>();
        List<Long> flushedAtCompletion = Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < 20; i++) {
            CompletableFuture<PutMessageResult> f = log.asyncPutMessage(message(i % 2, 1000));
            f.thenRun(() -> flushedAtCompletion.add(log.flushedOffset()));
            futures.add(f);
        }
        await().atMost(WAIT).until(() -> hooked.inForce);
        assertTrue(futures.stream().noneMatch(CompletableFuture::isDone), "no put completes before force()");
        assertEquals(0, log.flushedOffset());

        hooked.hold.countDown();
        for (CompletableFuture<PutMessageResult> f : futures) {
            PutMessageResult r = f.join();
            assertEquals(PutMessageStatus.PUT_OK, r.status());
            assertTrue(log.flushedOffset() >= r.appendResult().nextOffset());
        }
        await().atMost(WAIT).until(() -> flushedAtCompletion.size() == futures.size());
        long lastEnd = futures.get(futures.size() - 1).join().appendResult().nextOffset();
        for (int i = 0; i < futures.size(); i++) {
            assertTrue(flushedAtCompletion.get(i) >= futures.get(0).join().appendResult().nextOffset());
        }
        assertTrue(log.flushedOffset() >= lastEnd);
    }

    @Test
    void syncFlushCompletesFlushDiskTimeoutWhenForceIsStuck() throws IOException {
        CommitLog log = startHooked(config(FlushDiskType.SYNC_FLUSH).syncFlushTimeout(200).build());
        hooked.hold = new CountDownLatch(1);
        try {
            PutMessageResult r = put(log, message(0, 500));
            assertEquals(PutMessageStatus.FLUSH_DISK_TIMEOUT, r.status());
            assertNotNull(r.appendResult(), "the message is stored, only not yet durable");
            assertTrue(r.status().isStored());
            assertEquals(0, log.flushedOffset());
        } finally {
            hooked.hold.countDown();
        }
    }

    @Test
    void waitFalseOnlyWakesTheFlusher() throws IOException {
        CommitLog log = startHooked(config(FlushDiskType.SYNC_FLUSH).build());
        hooked.hold = new CountDownLatch(1);
        try {
            BrokerMessage noWait = BrokerMessage.builder().topic(TOPIC).body(new byte[100])
                .properties(Map.of(MessageProperties.WAIT_STORE_MSG_OK, "false")).build();
            CompletableFuture<PutMessageResult> f = log.asyncPutMessage(noWait);
            assertTrue(f.isDone());
            assertEquals(PutMessageStatus.PUT_OK, f.join().status());
            await().atMost(WAIT).until(() -> hooked.inForce);
        } finally {
            hooked.hold.countDown();
        }
        await().atMost(WAIT).until(() -> log.flushedOffset() == log.maxOffset());
    }

    @Test
    void ioExceptionFromForceFailsWaitersAndTurnsTheStoreReadOnly() throws IOException {
        Logger failStopLog = (Logger) LoggerFactory.getLogger(FailStop.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        failStopLog.addAppender(logged);
        try {
            CommitLog log = startHooked(config(FlushDiskType.SYNC_FLUSH).build());
            hooked.hold = new CountDownLatch(1);
            hooked.failure = new IOException("Input/output error");
            List<CompletableFuture<PutMessageResult>> futures = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                futures.add(log.asyncPutMessage(message(0, 800)));
            }
            await().atMost(WAIT).until(() -> hooked.inForce);
            hooked.hold.countDown();
            for (CompletableFuture<PutMessageResult> f : futures) {
                CompletionException e = assertThrows(CompletionException.class, f::join);
                assertInstanceOf(StoreException.class, e.getCause());
            }
            assertFalse(log.isWritable());
            assertEquals(0, log.flushedOffset(), "the flushed offset never passes what force() made durable");
            assertEquals(PutMessageStatus.SERVICE_NOT_AVAILABLE, put(log, message(0, 800)).status());

            List<ILoggingEvent> errors = logged.list.stream().filter(e -> e.getLevel() == Level.ERROR).toList();
            assertEquals(1, errors.size());
            String line = errors.get(0).getFormattedMessage();
            assertTrue(line.contains("read-only") && line.contains(StoreFiles.fileName(0)) && line.contains("offset 0"),
                line);
        } finally {
            failStopLog.detachAppender(logged);
        }
        assertTrue(Files.exists(dir.resolve("abort")), "a failed store does not claim a clean shutdown");
    }

    @ParameterizedTest
    @CsvSource({"SYNC_FLUSH", "ASYNC_FLUSH"})
    void ioExceptionFromCommittingTheWriteBufferTurnsTheStoreReadOnly(FlushDiskType type) throws IOException {
        CommitLog log = startHooked(config(type).transientStorePoolEnable(true).commitCommitLogLeastPages(0).build());
        hooked.commitFailure = new IOException("No space left on device");
        CompletableFuture<PutMessageResult> put = log.asyncPutMessage(message(0, 800));
        if (type == FlushDiskType.SYNC_FLUSH) {
            CompletionException e = assertThrows(CompletionException.class, put::join);
            assertInstanceOf(StoreException.class, e.getCause());
        }
        await().atMost(WAIT).until(() -> !log.isWritable());
        assertEquals(0, log.flushedOffset());
        assertEquals(0, log.maxOffset(), "readers never see bytes that were not committed");
        assertEquals(PutMessageStatus.SERVICE_NOT_AVAILABLE, put(log, message(0, 800)).status());
    }

    @Test
    void illegalMessagesGetAStatusAndWriteNothing() throws IOException {
        CommitLog log = start(config(FlushDiskType.ASYNC_FLUSH).maxMessageSize(1024).build());
        BrokerMessage tooLarge = BrokerMessage.builder().topic(TOPIC).body(new byte[1025]).build();
        assertEquals(PutMessageStatus.MESSAGE_ILLEGAL, put(log, tooLarge).status());

        BrokerMessage longProperties = BrokerMessage.builder().topic(TOPIC).body(new byte[10])
            .properties(Map.of("K", "v".repeat(Short.MAX_VALUE))).build();
        assertEquals(PutMessageStatus.PROPERTIES_SIZE_EXCEEDED, put(log, longProperties).status());

        BrokerMessage longTopic = BrokerMessage.builder().topic("t".repeat(128)).body(new byte[10]).build();
        assertEquals(PutMessageStatus.MESSAGE_ILLEGAL, put(log, longTopic).status());

        assertEquals(PutMessageStatus.MESSAGE_ILLEGAL, log.asyncPutMessages(List.of()).join().status());
        List<BrokerMessage> mixed = List.of(message(0, 300), message(1, 300));
        assertEquals(PutMessageStatus.MESSAGE_ILLEGAL, log.asyncPutMessages(mixed).join().status());
        assertNull(put(log, tooLarge).appendResult());

        assertEquals(0, log.maxOffset());
        assertEquals(0, log.queueOffsets().nextOffset(TOPIC, 0));
        assertEquals(PutMessageStatus.PUT_OK, put(log, message(0, 300)).status());
    }

    @Test
    void preparedAndRolledBackRecordsTakeNoQueueOffset() throws IOException {
        CommitLog log = start(config(FlushDiskType.ASYNC_FLUSH).build());
        assertEquals(0, put(log, message(2, 300)).appendResult().queueOffset());
        for (int type : new int[] {0x4, 0xC}) {
            BrokerMessage half = message(2, 300).toBuilder().sysFlag(type).build();
            AppendMessageResult r = log.asyncPutMessage(half).join().appendResult();
            assertEquals(0, r.queueOffset(), "sysFlag " + type);
            try (SelectedBuffer selected = log.select(r.physicalOffset(), r.wroteBytes())) {
                assertEquals(0, MessageRecordDecoder.decode(selected.buffer()).queueOffset());
            }
        }
        BrokerMessage committed = message(2, 300).toBuilder().sysFlag(0x8).build();
        assertEquals(1, log.asyncPutMessage(committed).join().appendResult().queueOffset());
        assertEquals(2, log.queueOffsets().nextOffset(TOPIC, 2));
    }

    @Test
    void batchGetsConsecutiveRecordsAndQueueOffsets() throws IOException {
        CommitLog log = start(config(FlushDiskType.ASYNC_FLUSH).build());
        put(log, message(2, 300));
        List<BrokerMessage> batch = List.of(message(2, 300), message(2, 400), message(2, 500));
        AppendMessageResult r = log.asyncPutMessages(batch).join().appendResult();
        assertEquals(300, r.physicalOffset());
        assertEquals(1200, r.wroteBytes());
        assertEquals(1, r.queueOffset());
        assertEquals(3, r.messageCount());
        try (SelectedBuffer selected = log.select(r.physicalOffset(), r.wroteBytes())) {
            ByteBuffer b = selected.buffer();
            for (int i = 0; i < 3; i++) {
                StoredMessage m = MessageRecordDecoder.decode(b);
                assertEquals(1 + i, m.queueOffset());
            }
        }
        assertEquals(4, log.queueOffsets().nextOffset(TOPIC, 2));
    }

    @Test
    void pageCacheBusyIsReportedAtOnce() throws Exception {
        AtomicLong clock = new AtomicLong(1_000_000);
        CommitLog log = start(config(FlushDiskType.ASYNC_FLUSH).osPageCacheBusyTimeOutMills(1000).build(),
            clock::get, UnaryOperator.identity());
        CountDownLatch locked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService holder = Executors.newSingleThreadExecutor();
        try {
            holder.submit(() -> {
                log.putLock().tryLock(1000, clock::get);
                try {
                    locked.countDown();
                    release.await();
                } finally {
                    log.putLock().unlock();
                }
                return null;
            });
            assertTrue(locked.await(10, TimeUnit.SECONDS));
            clock.addAndGet(1001);
            assertEquals(1001, log.putLockHeldMs());
            CompletableFuture<PutMessageResult> busy = log.asyncPutMessage(message(0, 300));
            assertTrue(busy.isDone(), "answered at once, not queued behind the lock");
            assertEquals(PutMessageStatus.OS_PAGE_CACHE_BUSY, busy.join().status());
        } finally {
            release.countDown();
            holder.shutdown();
            assertTrue(holder.awaitTermination(10, TimeUnit.SECONDS));
        }
        assertEquals(PutMessageStatus.PUT_OK, put(log, message(0, 300)).status());
    }

    @Test
    void putGivesUpWaitingForALockHeldTooLong() throws Exception {
        // The clock stands still, so the holder never looks busy: the put must give up waiting by itself.
        AtomicLong clock = new AtomicLong(1_000_000);
        CommitLog log = start(config(FlushDiskType.ASYNC_FLUSH).osPageCacheBusyTimeOutMills(50).build(),
            clock::get, UnaryOperator.identity());
        CountDownLatch locked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService holder = Executors.newSingleThreadExecutor();
        try {
            holder.submit(() -> {
                log.putLock().tryLock(1000, clock::get);
                try {
                    locked.countDown();
                    release.await();
                } finally {
                    log.putLock().unlock();
                }
                return null;
            });
            assertTrue(locked.await(10, TimeUnit.SECONDS));
            assertEquals(PutMessageStatus.OS_PAGE_CACHE_BUSY, put(log, message(0, 300)).status());
        } finally {
            release.countDown();
            holder.shutdown();
            assertTrue(holder.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void transientStorePoolReadersSeeOnlyCommittedBytes() throws IOException {
        StoreConfig config = config(FlushDiskType.ASYNC_FLUSH).transientStorePoolEnable(true)
            .commitIntervalCommitLog(60_000).commitCommitLogThoroughInterval(60_000).commitCommitLogLeastPages(1000)
            .build();
        CommitLog log = start(config);
        AppendMessageResult r = put(log, message(0, 500)).appendResult();
        assertEquals(0, log.maxOffset(), "not committed yet, so not readable");
        assertNull(log.select(0, 500));
        log.shutdown();

        CommitLog reopened = start(config);
        assertEquals(r.nextOffset(), reopened.maxOffset());
        assertEquals(0, read(reopened, r).queueOffset());
    }

    @Test
    void appendListenerAndReplicaWaitHooks() throws IOException {
        CommitLog log = start(config(FlushDiskType.ASYNC_FLUSH).build());
        AtomicLong seen = new AtomicLong();
        log.addAppendListener(seen::set);
        CompletableFuture<PutMessageStatus> replica = new CompletableFuture<>();
        log.setReplicaWait((m, r) -> replica);

        CompletableFuture<PutMessageResult> f = log.asyncPutMessage(message(0, 400));
        assertEquals(400, seen.get());
        assertFalse(f.isDone(), "waits for the replica too");
        replica.complete(PutMessageStatus.FLUSH_SLAVE_TIMEOUT);
        assertEquals(PutMessageStatus.FLUSH_SLAVE_TIMEOUT, f.join().status());

        log.setReplicaWait(ReplicaWait.NONE);
        assertEquals(PutMessageStatus.PUT_OK, put(log, message(0, 400)).status());
    }

    @Test
    void aPutIsAnsweredByTheReplicaWaitThatAdmittedItEvenWhenAnotherIsInstalledMeanwhile() throws IOException {
        CommitLog log = start(config(FlushDiskType.ASYNC_FLUSH).build());
        CompletableFuture<PutMessageStatus> replica = new CompletableFuture<>();
        AtomicLong admitted = new AtomicLong();
        log.setReplicaWait(new ReplicaWait() {
            @Override
            public CompletableFuture<PutMessageStatus> await(BrokerMessage message, AppendMessageResult result) {
                return replica;
            }

            @Override
            public PutMessageStatus admit(BrokerMessage message) {
                // a role change lands between the admission and the append: the endpoint stops and leaves NONE
                admitted.incrementAndGet();
                log.setReplicaWait(ReplicaWait.NONE);
                return null;
            }
        });

        CompletableFuture<PutMessageResult> f = log.asyncPutMessage(message(0, 400));
        assertEquals(1, admitted.get());
        assertFalse(f.isDone(), "still waits for the replicas of the wait that admitted it, not answered PUT_OK");
        replica.complete(PutMessageStatus.SLAVE_NOT_AVAILABLE);
        assertEquals(PutMessageStatus.SLAVE_NOT_AVAILABLE, f.join().status());
    }

    @Test
    void theWaitAStoppedEndpointLeavesRefusesEveryPutBeforeWritingIt() throws IOException {
        CommitLog log = start(config(FlushDiskType.ASYNC_FLUSH).build());
        log.setReplicaWait(ReplicaWait.STOPPED);
        long end = log.maxOffset();
        BrokerMessage noWait = BrokerMessage.builder().topic(TOPIC).queueId(0).body(new byte[100])
            .properties(Map.of(MessageProperties.WAIT_STORE_MSG_OK, "false")).build();
        assertEquals(PutMessageStatus.SERVICE_NOT_AVAILABLE, put(log, message(0, 400)).status());
        assertEquals(PutMessageStatus.SERVICE_NOT_AVAILABLE, put(log, noWait).status(), "WAIT=false too");
        assertEquals(end, log.maxOffset(), "nothing written");
    }

    @ParameterizedTest
    @CsvSource({"ASYNC_FLUSH, false", "ASYNC_FLUSH, true", "SYNC_FLUSH, false", "SYNC_FLUSH, true"})
    void cleanShutdownThenReloadKeepsEverything(FlushDiskType type, boolean transientStorePool) throws IOException {
        StoreConfig config = config(type).transientStorePoolEnable(transientStorePool).build();
        CommitLog log = start(config);
        List<AppendMessageResult> written = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            BrokerMessage m = BrokerMessage.builder().topic(TOPIC).queueId(i % 4)
                .body(("message-" + i + "-" + "x".repeat(i * 31 % 9000)).getBytes(StandardCharsets.UTF_8))
                .properties(Map.of(MessageProperties.KEYS, "k" + i)).build();
            PutMessageResult r = put(log, m);
            assertEquals(PutMessageStatus.PUT_OK, r.status());
            written.add(r.appendResult());
        }
        long end = written.get(written.size() - 1).nextOffset();
        assertTrue(end > FILE_SIZE, "crosses a file boundary");
        log.shutdown();
        assertFalse(Files.exists(dir.resolve("abort")));
        assertTrue(Files.exists(dir.resolve("checkpoint")));
        assertEquals(end, log.flushedOffset());

        CommitLog reopened = start(config);
        assertTrue(Files.exists(dir.resolve("abort")), "a running store has its abort marker");
        assertEquals(end, reopened.maxOffset());
        assertEquals(end, reopened.flushedOffset());
        for (int i = 0; i < written.size(); i++) {
            StoredMessage m = read(reopened, written.get(i));
            assertEquals(written.get(i).physicalOffset(), m.physicalOffset());
            assertEquals(i / 4, m.queueOffset());
            assertEquals("k" + i, m.property(MessageProperties.KEYS));
            assertArrayEquals(("message-" + i + "-" + "x".repeat(i * 31 % 9000)).getBytes(StandardCharsets.UTF_8),
                m.body());
        }
        AppendMessageResult more = put(reopened, message(0, 300)).appendResult();
        assertTrue(more.physicalOffset() == end || more.physicalOffset() == reopened.rollNextFile(end));
    }

    @Test
    void failedFileAllocationIsCreateMappedFileFailed() throws IOException {
        CommitLog log = start(config(FlushDiskType.ASYNC_FLUSH).build());
        // A non-empty directory where the third file must go: creating that file fails.
        Path blocker = dir.resolve("commitlog").resolve(StoreFiles.fileName(2L * FILE_SIZE));
        Files.createDirectories(blocker.resolve("occupied"));

        PutMessageResult r;
        do {
            r = put(log, message(0, 64 * 1024));
        } while (r.status() == PutMessageStatus.PUT_OK);
        assertEquals(PutMessageStatus.CREATE_MAPPED_FILE_FAILED, r.status());
        assertNull(r.appendResult());
        long queueOffsetBefore = log.queueOffsets().nextOffset(TOPIC, 0);
        assertTrue(log.isWritable(), "an allocation failure is not a write failure");

        Files.delete(blocker.resolve("occupied"));
        Files.delete(blocker);
        AppendMessageResult next = put(log, message(0, 64 * 1024)).appendResult();
        assertEquals(2L * FILE_SIZE, next.physicalOffset());
        assertEquals(queueOffsetBefore, next.queueOffset(), "the refused put took no queue offset");
    }

    @Test
    void aStoreThatFailedToLoadKeepsTheCrashMarker() throws IOException {
        StoreConfig config = config(FlushDiskType.ASYNC_FLUSH).build();
        Files.createDirectories(config.commitLogDir());
        Files.write(config.commitLogDir().resolve(StoreFiles.fileName(0)), new byte[100]);
        Files.createFile(dir.resolve("abort"));
        CommitLog log = CommitLog.open(config);
        IOException refused = assertThrows(IOException.class, log::load);
        assertTrue(refused.getMessage().contains(StoreFiles.fileName(0)), refused.getMessage());
        log.shutdown();
        assertTrue(Files.exists(dir.resolve("abort")), "the next start must still run a crash recovery");
        assertEquals(PutMessageStatus.SERVICE_NOT_AVAILABLE, put(log, message(0, 300)).status());
    }

    @Test
    void putsAfterShutdownAreRefused() throws IOException {
        CommitLog log = start(config(FlushDiskType.SYNC_FLUSH).build());
        log.shutdown();
        log.shutdown();
        assertEquals(PutMessageStatus.SERVICE_NOT_AVAILABLE, put(log, message(0, 300)).status());
    }
}
