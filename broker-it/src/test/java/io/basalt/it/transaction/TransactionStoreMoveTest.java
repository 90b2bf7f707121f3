package io.basalt.it.transaction;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.HalfQueueProgress;
import io.basalt.it.RocketMqNameServer;
import io.basalt.it.StoreSide;
import io.basalt.it.TopicReader;
import io.basalt.it.TransactionLedger;

/**
 * A store with pending half messages moves between the real RocketMQ 5.2.0 broker and a Basalt broker, both ways,
 * with the official 5.2.0 {@link TransactionMQProducer} on both sides. On the first broker a producer sends
 * transactions whose local transactions answer UNKNOW; the first broker checks nothing (its
 * {@code transactionCheckInterval} is 10 minutes) and is stopped cleanly, and the producer is shut down. The second
 * broker opens the same store (both launchers use the same file sizes) with short check intervals; a new producer
 * of the same group, now knowing every outcome (about two thirds COMMIT, the rest ROLLBACK), sends one ordinary
 * message to another topic (a producer that has sent nothing has no route, so no heartbeat, so it would never be
 * asked) and answers the second broker's checks. The real topic is then read record by record until every
 * committed transaction is stored and the second broker's check scan ({@code CID_RMQ_SYS_TRANS} in
 * {@code consumerOffset.json}, as both brokers keep it) has passed every half record, and 3 s more: every COMMIT
 * stored exactly once, by the second broker, no ROLLBACK, and every transaction decided by a check the second
 * broker sent.
 */
@LeakCheckExtension.AllowThreads(value = RocketMqNameServer.LEFT_RUNNING,
    because = "the official 5.2.0 NettyRemotingServer.shutdown(), which NamesrvController.shutdown() calls, leaves its"
        + " scheduler thread running")
class TransactionStoreMoveTest {
    private static final String TOPIC = "TxMovedTopic";
    private static final String WARM_UP_TOPIC = "TxMoveWarmUp";
    private static final String GROUP = "pg-tx-store-move";
    private static final int QUEUES = 4;
    private static final int TRANSACTIONS = 40;

    /** The first broker checks nothing before it is stopped. */
    private static final Map<String, String> NO_CHECK = Map.of("transactionCheckInterval", "600000",
        "transactionTimeOut", "600000");
    /**
     * Basalt as the second broker checks every second what is 2 s old, with RocketMQ's default op-marker batching
     * (3 s): a check repeated before the marker of its answer is written must not commit twice.
     */
    private static final Map<String, String> BASALT_CHECKS = Map.of("transactionCheckInterval", "1000",
        "transactionTimeOut", "2000");
    /**
     * RocketMQ as the second broker checks every 5 s and writes op markers within 0.5 s: RocketMQ 5.2.0 asks again
     * about a transaction whose op marker is not yet written and then commits it again (with Basalt's settings
     * above it stores most commits three or four times), so its checks must come slower than its markers.
     */
    private static final Map<String, String> ROCKETMQ_CHECKS = Map.of("transactionCheckInterval", "5000",
        "transactionTimeOut", "2000", "transactionOpBatchInterval", "500");

    @TempDir
    Path dir;
    private RocketMqNameServer nameServer;

    @BeforeEach
    void startNameServer() throws Exception {
        nameServer = RocketMqNameServer.start(dir);
    }

    @AfterEach
    void stopNameServer() {
        nameServer.close();
    }

    @Test
    void pendingHalfMessagesOfARocketMqStoreAreCheckedAndResolvedByBasalt() throws Exception {
        try (StoreSide rocketMq = StoreSide.rocketMq(dir, "rocketmq", nameServer, NO_CHECK);
             StoreSide basalt = StoreSide.basalt(dir, BASALT_CHECKS)) {
            move(rocketMq, basalt);
            // the start-up inspection reports what the check service then resolved, as information
            String found = Files.readString(dir.resolve("basalt/logs/broker.log")).lines()
                .filter(l -> l.contains("StoreOpeningInspection")).toList().toString();
            assertTrue(found.contains("INFO") && found.contains(TRANSACTIONS + " undecided transactions in"
                + " RMQ_SYS_TRANS_HALF_TOPIC"), found);
            assertFalse(found.contains("WARN"), found);
        }
    }

    @Test
    void pendingHalfMessagesOfABasaltStoreAreCheckedAndResolvedByRocketMq() throws Exception {
        try (StoreSide basalt = StoreSide.basalt(dir, NO_CHECK);
             StoreSide rocketMq = StoreSide.rocketMq(dir, "rocketmq", nameServer, ROCKETMQ_CHECKS)) {
            move(basalt, rocketMq);
        }
    }

    private void move(StoreSide first, StoreSide second) throws Exception {
        long seed = Long.getLong("basalt.reliability.seed", System.nanoTime());
        System.out.println("transaction store move seed=" + seed);
        TransactionLedger ledger = new TransactionLedger(seed, 2.0 / 3);
        long stopped;
        long halfRecords;
        try {
            first.start();
            first.createTopic(TOPIC, QUEUES);
            first.createTopic(WARM_UP_TOPIC, 1);
            TransactionMQProducer producer = ledger.producer(first.namesrvAddr(), GROUP);
            try {
                for (int i = 0; i < TRANSACTIONS; i++) {
                    ledger.send(producer, TOPIC, "moved-" + i, key -> LocalTransactionState.UNKNOW);
                }
            } finally {
                TransactionLedger.shutdown(producer);
            }
            try (HalfQueueProgress progress = new HalfQueueProgress(first.brokerAddr())) {
                halfRecords = progress.halfEnd();
                assertEquals(0, progress.scanOffset(), "the first broker checked before the move");
            }
            first.stopGracefully();
            stopped = System.currentTimeMillis();
        } catch (Throwable e) {
            throw new AssertionError(first.describe(), e);
        }
        assertTrue(halfRecords >= TRANSACTIONS, "half records written by the first broker: " + halfRecords);
        assertEquals(0, ledger.unknownChecks() + ledger.decisiveChecks(), "checks from the first broker");

        ledger.reveal();
        HalfQueueProgress progress = null;
        try {
            second.start();
            progress = new HalfQueueProgress(second.brokerAddr());
            TransactionMQProducer producer = ledger.producer(second.namesrvAddr(), GROUP);
            List<String> storedByFirst = new CopyOnWriteArrayList<>();
            try (TopicReader reader = new TopicReader(second.namesrvAddr(), TOPIC, "broker-a", QUEUES)) {
                warmUp(producer);
                HalfQueueProgress scan = progress;
                await().atMost(ofSeconds(90)).pollInterval(ofMillis(200)).ignoreExceptions().until(() -> {
                    List<MessageExt> records = reader.readNew();
                    records.stream().filter(m -> m.getStoreTimestamp() < stopped).forEach(m -> storedByFirst.add(m.getKeys()));
                    ledger.stored(records);
                    return ledger.allCommitsStored() && scan.unscanned() == 0;
                });
                long end = System.currentTimeMillis() + 3000;
                while (System.currentTimeMillis() < end) {
                    ledger.stored(reader.readNew());
                    Thread.sleep(100);
                }
            } finally {
                TransactionLedger.shutdown(producer);
            }
            System.out.printf("transaction store move: %d transactions (%d committed, %d rolled back), %d half records"
                + " moved; %d checks answered by the second broker's producer (%d repeated); %s%n",
                ledger.acknowledged(), ledger.committed(), ledger.rolledBack(), halfRecords, ledger.decisiveChecks(),
                ledger.repeatedDecisiveChecks(), progress.describe());
            second.stopGracefully();
            assertEquals(List.of(), storedByFirst, "stored before the first broker stopped: the move proves nothing for them");
        } catch (Throwable e) {
            throw new AssertionError("after the move: " + ledger.missingCommits().size() + " commits missing, "
                + (progress == null ? "" : progress.describe()) + ", " + ledger.decisiveChecks() + " checks answered\n"
                + second.describe(), e);
        } finally {
            if (progress != null) {
                progress.close();
            }
        }

        String context = "\n" + second.describe();
        assertEquals(List.of(), ledger.missingCommits(), "committed, never stored" + context);
        assertEquals(List.of(), ledger.duplicatedCommits(20), "committed, stored more than once" + context);
        assertEquals(List.of(), ledger.storedRollbacks(20), "rolled back, yet stored" + context);
        assertEquals(List.of(), ledger.neverAnsweredByACheck(20), "decided without asking the producer" + context);
        assertEquals(0, ledger.damaged(), "records whose body is not their key");
        assertEquals(0, ledger.strangers(), "records the producer never sent");
        assertTrue(ledger.committed() > 0 && ledger.rolledBack() > 0, "both outcomes were tried");
    }

    /** One ordinary send: the producer then has the broker's route and sends it heartbeats naming its group. */
    private static void warmUp(TransactionMQProducer producer) {
        await().atMost(ofSeconds(40)).ignoreExceptions().until(() -> producer.send(new Message(WARM_UP_TOPIC, "warm-up",
            "warm-up".getBytes(StandardCharsets.UTF_8))).getSendStatus() == SendStatus.SEND_OK);
    }
}
