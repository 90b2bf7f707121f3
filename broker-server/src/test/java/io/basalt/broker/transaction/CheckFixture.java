package io.basalt.broker.transaction;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.basalt.broker.client.ProducerChannels;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RemotingConnection;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.MessageStore;
import io.basalt.store.StoreConfig;
import io.basalt.store.StoredMessage;

/**
 * A real store in a temp dir with the scan's collaborators: a producer connection that records what it is sent, a
 * decisions table, a clock that runs ahead of the store's by {@link #advance}.
 */
final class CheckFixture implements AutoCloseable {
    static final InetSocketAddress STORE_HOST = new InetSocketAddress("127.0.0.1", 10911);
    static final InetSocketAddress PRODUCER = new InetSocketAddress("127.0.0.1", 45001);
    static final String GROUP = "pg";

    final Path dir;
    final MessageStore store;
    final ConsumerOffsetManager offsets;
    final TopicConfigManager topics;
    final TransactionCounters counters = new TransactionCounters();
    final Decisions decisions = new Decisions();
    final Connection connection = new Connection();
    final AtomicBoolean producerOnline = new AtomicBoolean(true);
    final AtomicBoolean delaysApply = new AtomicBoolean(true);
    final AtomicLong skewMs = new AtomicLong();
    final List<String> pendingRemoved = new CopyOnWriteArrayList<>();
    final ProducerChannels channels = (group, from) ->
        producerOnline.get() && GROUP.equals(group) ? Optional.of(connection) : Optional.empty();
    final TransactionChecks checks;
    private int sent;

    CheckFixture(Path dir) throws IOException {
        this.dir = dir;
        store = MessageStore.open(StoreConfig.builder().storePathRootDir(dir.toString()).mappedFileSizeCommitLog(1 << 20)
            .mappedFileSizeConsumeQueue(300_000).warmMapedFileEnable(false).maxHashSlotNum(64).maxIndexNum(400).build());
        // the broker's delay step, which would redirect a copy carrying DELAY (off while a test writes its records)
        io.basalt.broker.schedule.DelayLevelTransform delays =
            new io.basalt.broker.schedule.DelayLevelTransform(io.basalt.store.DelayLevels.parse("1s 2s"));
        store.addPutTransform(m -> delaysApply.get() ? delays.apply(m) : io.basalt.store.PutMessageTransform.Decision.append(m));
        store.load();
        store.start();
        offsets = ConsumerOffsetManager.open(dir.resolve("config"));
        topics = TopicConfigManager.open(dir.resolve("config"), false, 4);
        checks = new TransactionChecks("broker-a", counters, new DirectExecutor());
    }

    HalfQueueScan scan(CheckSettings settings) {
        return new HalfQueueScan(store, offsets, decisions, channels, checks,
            new GivenUpTransactions(store, topics, counters, pendingRemoved::add, STORE_HOST), counters, STORE_HOST,
            this::now, settings);
    }

    HalfQueueScan.Report run(HalfQueueScan scan) {
        HalfQueueScan.Report report = scan.run(() -> true);
        settle();
        return report;
    }

    long now() {
        return System.currentTimeMillis() + skewMs.get();
    }

    void advance(long ms) {
        skewMs.addAndGet(ms);
    }

    /** A half message as the half send stores it; returns its half-queue offset. */
    long putHalf(String uniqKey, Map<String, String> extra) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("TRAN_MSG", "true");
        properties.put("PGROUP", GROUP);
        properties.put(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX, uniqKey);
        properties.put("WAIT", "true");
        properties.put(TransactionalMessages.PROPERTY_TRANSACTION_ID, uniqKey);
        properties.put(TransactionalMessages.PROPERTY_REAL_TOPIC, "TopicA");
        properties.put(TransactionalMessages.PROPERTY_REAL_QUEUE_ID, "3");
        properties.putAll(extra);
        delaysApply.set(false);
        BrokerMessage m = BrokerMessage.builder().topic(TransactionalMessages.HALF_TOPIC).queueId(0).flag(7)
            .body(("body-" + uniqKey).getBytes(StandardCharsets.UTF_8)).properties(properties)
            .bornTimestamp(System.currentTimeMillis()).bornHost(PRODUCER).storeHost(STORE_HOST).build();
        assertTrue(store.asyncPutMessage(m).join().isOk());
        delaysApply.set(true);
        settle();
        return m.queueOffset();
    }

    /** An op marker with this body, tag d unless given. */
    void putOpMarker(String body, String tag) {
        Map<String, String> properties = new HashMap<>();
        properties.put(MessageProperties.TAGS, tag);
        properties.put("WAIT", "true");
        BrokerMessage m = BrokerMessage.builder().topic(TransactionalMessages.OP_HALF_TOPIC).queueId(0)
            .body(body.getBytes(StandardCharsets.US_ASCII)).properties(properties)
            .bornTimestamp(System.currentTimeMillis()).bornHost(STORE_HOST).storeHost(STORE_HOST).build();
        assertTrue(store.asyncPutMessage(m).join().isOk());
        settle();
    }

    /** Waits until every record is in its queue. */
    void settle() {
        await().atMost(ofSeconds(10)).until(() -> store.getReputFromOffset() >= store.getMaxPhyOffset());
    }

    long halfQueueEnd() {
        return store.getMaxOffsetInQueue(TransactionalMessages.HALF_TOPIC, 0);
    }

    StoredMessage halfRecord(long offset) {
        return store.lookMessageByOffset(store.getCommitLogOffsetInQueue(TransactionalMessages.HALF_TOPIC, 0, offset));
    }

    /** The requests sent since the last call. */
    List<RemotingCommand> newRequests() {
        List<RemotingCommand> all = new ArrayList<>(connection.requests);
        List<RemotingCommand> fresh = all.subList(sent, all.size());
        sent = all.size();
        return new ArrayList<>(fresh);
    }

    @Override
    public void close() {
        checks.shutdown();
        store.shutdown();
    }

    /** A producer connection: records requests; fails writes while {@link #failWrites} is set. */
    static final class Connection implements RemotingConnection {
        final List<RemotingCommand> requests = new CopyOnWriteArrayList<>();
        final AtomicBoolean failWrites = new AtomicBoolean();

        @Override
        public SocketAddress remoteAddress() {
            return PRODUCER;
        }

        @Override
        public boolean isActive() {
            return true;
        }

        @Override
        public CompletableFuture<RemotingCommand> invoke(RemotingCommand request, long timeoutMs) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> invokeOneway(RemotingCommand request) {
            if (failWrites.get()) {
                return CompletableFuture.failedFuture(new IllegalStateException("connection closed"));
            }
            requests.add(request);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void close() {
        }
    }

    /** Runs each check on the scan's thread, so that a test sees it sent when the scan returns. */
    static final class DirectExecutor extends java.util.concurrent.AbstractExecutorService {
        @Override
        public void execute(Runnable command) {
            command.run();
        }

        @Override
        public void shutdown() {
        }

        @Override
        public List<Runnable> shutdownNow() {
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return false;
        }

        @Override
        public boolean isTerminated() {
            return false;
        }

        @Override
        public boolean awaitTermination(long timeout, java.util.concurrent.TimeUnit unit) {
            return true;
        }
    }

    /** Decisions as END_TRANSACTION would leave them: offsets marked done, transactions decided by UNIQ_KEY. */
    static final class Decisions implements TransactionDecisions {
        final Set<Long> marked = ConcurrentHashMap.newKeySet();
        final Map<String, Decision> byUniqKey = new ConcurrentHashMap<>();
        final Map<Long, Decision> markedByScan = new ConcurrentHashMap<>();

        @Override
        public Optional<Decision> decisionFor(StoredMessage half) {
            return Optional.ofNullable(byUniqKey.get(half.property(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX)));
        }

        @Override
        public boolean isMarkedDone(long halfQueueOffset) {
            return marked.contains(halfQueueOffset);
        }

        @Override
        public void markDone(long halfQueueOffset, StoredMessage half, Decision decision) {
            marked.add(halfQueueOffset);
            markedByScan.put(halfQueueOffset, decision);
        }
    }
}
