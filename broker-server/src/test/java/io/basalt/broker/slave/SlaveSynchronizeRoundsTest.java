package io.basalt.broker.slave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.basalt.remoting.netty.NettyClientConfig;
import io.basalt.remoting.netty.NettyRemotingClient;
import io.basalt.remoting.netty.NettyRemotingServer;
import io.basalt.remoting.netty.NettyServerConfig;
import io.basalt.remoting.processor.RequestExecutor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** When a slave's rounds ask the master, and what they do with the answers (rounds driven by the test, clock faked). */
class SlaveSynchronizeRoundsTest {
    private static final int CODE = 43;

    private NettyRemotingServer master;
    private RequestExecutor executor;
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final AtomicReference<Optional<String>> masterAddress = new AtomicReference<>(Optional.empty());
    private final AtomicBoolean isSlave = new AtomicBoolean(true);
    private NettyRemotingClient client;

    /** A job that records the bodies it applied and fails while told to. */
    private static final class RecordingJob implements MetadataSync {
        final AtomicInteger applied = new AtomicInteger();
        final AtomicBoolean failing = new AtomicBoolean();

        @Override
        public String what() {
            return "test table";
        }

        @Override
        public int requestCode() {
            return CODE;
        }

        @Override
        public void apply(RemotingCommand response) throws IOException {
            MetadataSync.successBody(response, what());
            if (failing.get()) {
                throw new IOException("cannot persist");
            }
            applied.incrementAndGet();
        }
    }

    @BeforeEach
    void startMaster() {
        executor = RequestExecutor.create("TestMaster_", 1, 100, 0);
        master = new NettyRemotingServer(NettyServerConfig.defaults(0));
        master.registerProcessor(CODE, (context, request) -> {
            requests.incrementAndGet();
            RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
            response.setBody("{}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return CompletableFuture.completedFuture(response);
        }, executor);
        master.start();
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (client != null) {
            client.close();
        }
        master.shutdown();
        executor.shutdown(5000);
    }

    private SlaveSynchronize sync(RecordingJob job) {
        return new SlaveSynchronize(List.of(job), masterAddress::get, isSlave::get, () -> {
            client = new NettyRemotingClient(NettyClientConfig.defaults());
            return client;
        }, now::get);
    }

    @Test
    void theFirstRoundRunsOnceTheMasterIsKnownThenEveryTenSeconds() throws Exception {
        RecordingJob job = new RecordingJob();
        SlaveSynchronize sync = sync(job);
        sync.doWork();
        assertEquals(0, requests.get(), "no master address yet");

        masterAddress.set(Optional.of("127.0.0.1:" + master.localPort()));
        sync.doWork();
        assertEquals(1, job.applied.get(), "at once, without waiting for the period");
        now.addAndGet(SlaveSynchronize.SYNC_PERIOD_MS);
        sync.doWork();
        assertEquals(1, requests.get(), "not again within the period");
        now.addAndGet(1);
        sync.doWork();
        assertEquals(2, job.applied.get());
        assertEquals(2, sync.completedSyncs());
    }

    @Test
    void aFailedRoundIsRetriedAtTheNextTick() throws Exception {
        RecordingJob job = new RecordingJob();
        SlaveSynchronize sync = sync(job);
        masterAddress.set(Optional.of("127.0.0.1:" + master.localPort()));
        job.failing.set(true);
        sync.doWork();
        assertEquals(0, sync.completedSyncs());
        job.failing.set(false);
        sync.doWork();
        assertEquals(1, job.applied.get(), "retried without waiting for the period");
        assertEquals(1, sync.completedSyncs());
    }

    @Test
    void aPromotedSlaveAsksNoMore() throws Exception {
        RecordingJob job = new RecordingJob();
        SlaveSynchronize sync = sync(job);
        masterAddress.set(Optional.of("127.0.0.1:" + master.localPort()));
        isSlave.set(false);
        sync.doWork();
        assertEquals(0, requests.get());
        assertEquals(0, job.applied.get());
    }

    @Test
    void theTopicTableIsAskedForOnTheFastPort() {
        assertEquals("10.0.0.1:10909", SlaveSynchronize.vipAddress("10.0.0.1:10911"));
    }

    /** A job asked at every round. */
    private static final class EveryRoundJob implements MetadataSync {
        final AtomicInteger applied = new AtomicInteger();

        @Override
        public String what() {
            return "every-round table";
        }

        @Override
        public int requestCode() {
            return CODE;
        }

        @Override
        public boolean everyRound() {
            return true;
        }

        @Override
        public void apply(RemotingCommand response) throws IOException {
            MetadataSync.successBody(response, what());
            applied.incrementAndGet();
        }
    }

    @Test
    void anEveryRoundJobRunsAtEveryRoundWhileTheFullSyncWaitsForItsPeriod() {
        RecordingJob full = new RecordingJob();
        EveryRoundJob frequent = new EveryRoundJob();
        SlaveSynchronize sync = new SlaveSynchronize(List.of(full, frequent), masterAddress::get, isSlave::get, () -> {
            client = new NettyRemotingClient(NettyClientConfig.defaults());
            return client;
        }, now::get);
        masterAddress.set(Optional.of("127.0.0.1:" + master.localPort()));
        sync.doWork();
        now.addAndGet(SlaveSynchronize.TICK_MS);
        sync.doWork();
        now.addAndGet(SlaveSynchronize.TICK_MS);
        sync.doWork();
        assertEquals(3, frequent.applied.get());
        assertEquals(1, full.applied.get(), "the full sync only once within its period");
        assertEquals(1, sync.completedSyncs());

        isSlave.set(false);
        sync.doWork();
        assertEquals(3, frequent.applied.get(), "a promoted slave applies no more checkpoints");
    }

    @Test
    void theLastSyncBeforeAPromotionGivesUpOnAMasterThatDoesNotAnswer() throws Exception {
        try (HungMaster hung = new HungMaster()) {
            RecordingJob first = new RecordingJob();
            RecordingJob second = new RecordingJob();
            SlaveSynchronize sync = new SlaveSynchronize(List.of(first, second), masterAddress::get, isSlave::get, () -> {
                client = new NettyRemotingClient(NettyClientConfig.defaults());
                return client;
            }, now::get);
            long start = System.nanoTime();
            assertFalse(sync.syncOnce(hung.address()));
            long tookMs = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(0, first.applied.get() + second.applied.get());
            // one budget for all tables, not a request timeout (3 s) for each
            assertTrue(tookMs < SlaveSynchronize.REQUEST_TIMEOUT_MS, "took " + tookMs + " ms");

            assertTrue(sync.syncOnce("127.0.0.1:" + master.localPort()), "a live master answers every table");
            assertEquals(2, first.applied.get() + second.applied.get());
        }
    }

    @Test
    void shutdownCutsShortARoundWaitingForAMasterThatDoesNotAnswer() throws Exception {
        try (HungMaster hung = new HungMaster()) {
            RecordingJob job = new RecordingJob();
            SlaveSynchronize sync = sync(job);
            masterAddress.set(Optional.of(hung.address()));
            sync.start();
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> hung.asked());
            long start = System.nanoTime();
            sync.shutdown();
            long tookMs = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            // the request in flight fails when the service is told to stop, instead of waiting out its timeout
            assertTrue(tookMs < SlaveSynchronize.REQUEST_TIMEOUT_MS / 2, "took " + tookMs + " ms");
            assertEquals(0, job.applied.get());
        }
    }

    /** A master that accepts connections and never answers a request (hung, or cut off behind a live port). */
    private static final class HungMaster implements AutoCloseable {
        private final RequestExecutor executor = RequestExecutor.create("HungMaster_", 1, 100, 0);
        private final NettyRemotingServer server = new NettyRemotingServer(NettyServerConfig.defaults(0));
        private final List<CompletableFuture<RemotingCommand>> unanswered = new java.util.concurrent.CopyOnWriteArrayList<>();

        HungMaster() {
            server.registerProcessor(CODE, (context, request) -> {
                CompletableFuture<RemotingCommand> never = new CompletableFuture<>();
                unanswered.add(never);
                return never;
            }, executor);
            server.start();
        }

        String address() {
            return "127.0.0.1:" + server.localPort();
        }

        boolean asked() {
            return !unanswered.isEmpty();
        }

        @Override
        public void close() throws InterruptedException {
            // answered now, so that the server's shutdown does not wait out its drain timeout
            unanswered.forEach(f -> f.complete(RemotingCommand.response(ResponseCode.SYSTEM_BUSY, "shutting down")));
            server.shutdown();
            executor.shutdown(5000);
        }
    }
}
