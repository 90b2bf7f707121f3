package io.basalt.broker.transaction;

import java.net.InetSocketAddress;
import java.util.function.BooleanSupplier;

import io.basalt.broker.client.ProducerChannels;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.common.service.ErrorPolicy;
import io.basalt.common.service.ServiceThread;
import io.basalt.store.MessageStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The back-check of undecided half messages (RocketMQ's thread of this name): every {@code transactionCheckInterval}
 * one {@link HalfQueueScan}, the first one interval after start (a restarted broker does not ask again at once what
 * it asked just before it stopped). Runs only while this broker is a writable master: the broker starts it on a
 * master, or on a slave when it is promoted, and shuts it down when it is fenced and at shutdown; a scan also stops
 * as soon as the broker no longer accepts writes. A slave never checks: its {@code CID_RMQ_SYS_TRANS} offsets come
 * from the master's consumerOffset.json with the other offsets, so a promoted slave goes on where the master was.
 */
public final class TransactionalMessageCheckService extends ServiceThread {
    private static final Logger log = LoggerFactory.getLogger("RocketmqTransaction");

    private final HalfQueueScan scan;
    private final TransactionChecks checks;
    private final BooleanSupplier writable;
    private final long intervalMs;
    private volatile boolean waited;

    /**
     * @param decisions what END_TRANSACTION decided, asked before any check
     * @param channels  the producers' connections the checks go to
     * @param pending   told of each half message given up
     * @param storeHost this broker's store host (brokerIP1:listenPort), the store host of the copies it writes
     * @param writable  whether this broker accepts writes now
     */
    public TransactionalMessageCheckService(MessageStore store, TopicConfigManager topics, ConsumerOffsetManager offsets,
                                            TransactionDecisions decisions, ProducerChannels channels,
                                            TransactionCounters counters, PendingHalfMessages pending, String brokerName,
                                            InetSocketAddress storeHost, CheckSettings settings, BooleanSupplier writable) {
        super("TransactionalMessageCheckService", ErrorPolicy.resilient());
        this.checks = new TransactionChecks(brokerName, counters);
        this.scan = new HalfQueueScan(store, offsets, decisions, channels, checks,
            new GivenUpTransactions(store, topics, counters, pending, storeHost), counters, storeHost,
            System::currentTimeMillis, settings);
        this.writable = writable;
        this.intervalMs = settings.transactionCheckIntervalMs();
    }

    @Override
    protected int doWork() {
        if (!waited) {
            waited = true;
            return 0;
        }
        if (!writable.getAsBoolean()) {
            return 0;
        }
        long begin = System.currentTimeMillis();
        log.info("Begin to check prepare message, begin time:{}", begin);
        HalfQueueScan.Report report = scan.run(writable);
        log.info("End to check prepare message, consumed time:{}", System.currentTimeMillis() - begin);
        return 1 + report.checked();
    }

    /** Whether the service thread runs (started and not shut down or fenced). */
    public boolean isRunning() {
        return waited && !isStopped();
    }

    @Override
    protected long idleWaitMs() {
        return intervalMs;
    }

    @Override
    protected boolean waitsAfterEveryRound() {
        return true;
    }

    @Override
    protected void onShutdown() {
        checks.shutdown();
    }
}
