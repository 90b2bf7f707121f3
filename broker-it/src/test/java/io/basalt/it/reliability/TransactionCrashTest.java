package io.basalt.it.reliability;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;
import io.basalt.it.HalfQueueProgress;
import io.basalt.it.TopicReader;
import io.basalt.it.TransactionLedger;

/**
 * {@code kill -9} of a broker in the middle of transactions of the official 5.2.0 {@link TransactionMQProducer}
 * ({@code basalt.reliability.transactions} of them, CI: 400, sent by 8 threads; about two thirds COMMIT, the rest
 * ROLLBACK, seeded; {@code -Dbasalt.reliability.seed} replays a run). The broker runs with short check intervals
 * ({@code transactionTimeOut} 2 s, {@code transactionCheckInterval} 1 s). After the restart the test reads the real
 * topic record by record ({@link TopicReader}: a message put twice shows as two records) until every committed
 * transaction is there and the check scan has passed every half record ({@link HalfQueueProgress}: nothing left
 * undecided), then 3 s more. Every acknowledged COMMIT must be stored exactly once, no ROLLBACK ever.
 * <ul>
 *   <li><b>Between the half send and END_TRANSACTION:</b> every local transaction answers UNKNOW (and so do checks)
 *       except each thread's last, which blocks until the broker is dead and then returns its outcome, so its
 *       END_TRANSACTION goes to a dead broker. The kill comes once the broker has checked every transaction (each
 *       answered UNKNOW), so the half queue holds check copies too. Nothing may be stored before the kill. After
 *       the restart the checks get the outcomes: the broker learns every decision from its back-check only.</li>
 *   <li><b>Between END_TRANSACTION and its op marker:</b> {@code transactionOpBatchInterval} is 60 s, so the op
 *       markers of the decided transactions are still in the broker's memory when it is killed (the test checks
 *       that none is written yet). Every local transaction decides at once and checks answer truthfully. After
 *       the restart the check may ask again about transactions already committed: the commit must not be stored a
 *       second time. A rollback, whose only trace was its lost marker, must be asked again unless the check scan's
 *       offset (which moves past decided half messages and is persisted in consumerOffset.json) had passed it
 *       before the kill.</li>
 * </ul>
 * <ul>
 *   <li><b>At random points:</b> {@code basalt.reliability.transactionCrashCycles} (CI: 4) kills, each after a
 *       seeded random number (100–500) of further acknowledged half sends, while 8 threads keep sending: a third of
 *       the local transactions decide at once, a third after up to 50 ms, a third stay UNKNOW until every outcome is
 *       revealed at the end; op markers are batched as RocketMQ's default (3 s). So kills fall between half sends
 *       and END_TRANSACTION, between END_TRANSACTION and its marker, and among checks and their copies.</li>
 * </ul>
 * Figures: transactions, committed, rolled back, checks answered UNKNOW before the kill, checks answered with an
 * outcome (and how many repeated an earlier answer), op markers at the kill, duplicates, rollbacks stored, missing.
 */
class TransactionCrashTest {
    private static final String TOPIC = "TxCrashTopic";
    private static final int QUEUES = 4;
    private static final int THREADS = 8;
    private static final Map<String, String> CHECKS = Map.of("transactionTimeOut", "2000",
        "transactionCheckInterval", "1000");

    /** Kept when a test fails: the broker's logs and store are the evidence. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @Test
    void killBetweenHalfSendAndEndTransactionCommitsEveryCommittedOnceAfterTheCheckAndNoRollback() throws Exception {
        int total = Figures.scaled("transactions", 400);
        long seed = Long.getLong("basalt.reliability.seed", System.nanoTime());
        System.out.println("RELIABILITY transaction-crash-before-end seed=" + seed);
        long started = System.nanoTime();
        TransactionLedger ledger = new TransactionLedger(seed, 2.0 / 3);
        try (BrokerProcess broker = BrokerProcess.create(dir, CHECKS);
             HalfQueueProgress progress = new HalfQueueProgress(broker.address())) {
            broker.start();
            createTopic(broker);
            TransactionMQProducer producer = ledger.producer(broker.address(), "pg-tx-crash-before-end");
            try (TopicReader reader = new TopicReader(broker.address(), TOPIC, broker.brokerName(), QUEUES)) {
                CountDownLatch lastOnesRunning = new CountDownLatch(THREADS);
                CountDownLatch killed = new CountDownLatch(1);
                AtomicLong failures = new AtomicLong();
                AtomicReference<Exception> firstFailure = new AtomicReference<>();
                List<Thread> senders = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    int thread = t;
                    Thread sender = new Thread(() -> {
                        for (int i = thread; i < total; i += THREADS) {
                            boolean last = i + THREADS >= total;
                            TransactionLedger.Local local = last ? key -> {
                                lastOnesRunning.countDown();
                                killed.await(120, TimeUnit.SECONDS);
                                return ledger.answer(key);
                            } : key -> LocalTransactionState.UNKNOW;
                            try {
                                ledger.send(producer, TOPIC, "tx-" + i, local);
                            } catch (Exception e) {
                                failures.incrementAndGet();
                                firstFailure.compareAndSet(null, e);
                                if (last) {
                                    lastOnesRunning.countDown();
                                }
                            }
                        }
                    }, "tx-sender-" + t);
                    sender.start();
                    senders.add(sender);
                }
                assertTrue(lastOnesRunning.await(120, TimeUnit.SECONDS), "the senders' last local transactions started");
                assertEquals(0, failures.get(), () -> "half sends refused by a healthy broker, the first: " + causes(firstFailure.get()));
                // the broker asks about every one before it dies (answered UNKNOW), so the kill also leaves check copies
                await().atMost(ofSeconds(60)).pollInterval(ofMillis(100))
                    .until(() -> ledger.checkedTransactions() == total);
                ledger.stored(reader.readNew());
                long storedBeforeKill = ledger.storedRecords();
                long halfRecordsAtKill = progress.halfEnd();
                long unknownBefore = ledger.unknownChecks();

                broker.killHard();
                killed.countDown();
                for (Thread t : senders) {
                    t.join(60_000);
                }
                ledger.reveal();
                broker.start();
                awaitEverythingDecided(ledger, reader, progress, broker);

                Figures.of("transaction-crash-before-end").put("seed", seed).put("transactions", ledger.acknowledged())
                    .put("committed", ledger.committed()).put("rolled-back", ledger.rolledBack())
                    .put("half-records-at-kill", halfRecordsAtKill).put("stored-before-kill", storedBeforeKill)
                    .put("checks-unknown-before-kill", unknownBefore)
                    .put("checks-answered-after-restart", ledger.decisiveChecks())
                    .put("checks-repeated-after-answer", ledger.repeatedDecisiveChecks())
                    .put("duplicates", ledger.duplicates()).put("rollbacks-stored", ledger.storedRollbacks(1000).size())
                    .put("missing", ledger.missingCommits().size())
                    .put("seconds", (System.nanoTime() - started) / 1_000_000_000L).report();
                assertEquals(0, storedBeforeKill, "transactions stored while every local transaction was undecided");
                assertEquals(List.of(), ledger.neverAnsweredByACheck(20), "undecided at the kill, so only a check"
                    + " after the restart can have decided them");
                judge(ledger);
            } finally {
                TransactionLedger.shutdown(producer);
            }
            broker.stopGracefully();
        }
    }

    @Test
    void killBetweenEndTransactionAndItsOpMarkerStoresNoCommitTwice() throws Exception {
        int total = Figures.scaled("transactions", 400);
        long seed = Long.getLong("basalt.reliability.seed", System.nanoTime());
        System.out.println("RELIABILITY transaction-crash-before-op-marker seed=" + seed);
        long started = System.nanoTime();
        TransactionLedger ledger = new TransactionLedger(seed, 2.0 / 3);
        ledger.reveal();
        Map<String, String> conf = new HashMap<>(CHECKS);
        conf.put("transactionOpBatchInterval", "60000");
        try (BrokerProcess broker = BrokerProcess.create(dir, conf);
             HalfQueueProgress progress = new HalfQueueProgress(broker.address())) {
            broker.start();
            createTopic(broker);
            TransactionMQProducer producer = ledger.producer(broker.address(), "pg-tx-crash-before-op");
            try (TopicReader reader = new TopicReader(broker.address(), TOPIC, broker.brokerName(), QUEUES)) {
                AtomicLong failures = new AtomicLong();
                AtomicReference<Exception> firstFailure = new AtomicReference<>();
                List<Thread> senders = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    int thread = t;
                    Thread sender = new Thread(() -> {
                        for (int i = thread; i < total; i += THREADS) {
                            try {
                                ledger.send(producer, TOPIC, "tx-" + i, ledger::answer);
                            } catch (Exception e) {
                                failures.incrementAndGet();
                                firstFailure.compareAndSet(null, e);
                            }
                        }
                    }, "tx-sender-" + t);
                    sender.start();
                    senders.add(sender);
                }
                for (Thread t : senders) {
                    t.join(120_000);
                }
                assertEquals(0, failures.get(), () -> "half sends refused by a healthy broker, the first: " + causes(firstFailure.get()));
                // the commits are acted on (stored in the topic) before the kill: END_TRANSACTION was served
                await().atMost(ofSeconds(60)).pollInterval(ofMillis(50)).until(() -> {
                    ledger.stored(reader.readNew());
                    return ledger.allCommitsStored();
                });
                long opMarkersAtKill = progress.opMarkers();
                long scanAtKill = progress.scanOffset();
                long checksBeforeKill = ledger.decisiveChecks();
                broker.killHard();
                broker.start();
                awaitEverythingDecided(ledger, reader, progress, broker);

                List<String> unaskedRollbacks = ledger.neverAnsweredByACheck(TransactionLedger.Outcome.ROLLBACK,
                    Integer.MAX_VALUE);
                Figures.of("transaction-crash-before-op-marker").put("seed", seed)
                    .put("transactions", ledger.acknowledged()).put("committed", ledger.committed())
                    .put("rolled-back", ledger.rolledBack()).put("op-markers-at-kill", opMarkersAtKill)
                    .put("scan-offset-at-kill", scanAtKill)
                    .put("rollbacks-not-asked-again-scan-passed", unaskedRollbacks.size())
                    .put("checks-before-kill", checksBeforeKill)
                    .put("checks-answered-after-restart", ledger.decisiveChecks() - checksBeforeKill)
                    .put("duplicates", ledger.duplicates()).put("rollbacks-stored", ledger.storedRollbacks(1000).size())
                    .put("missing", ledger.missingCommits().size())
                    .put("seconds", (System.nanoTime() - started) / 1_000_000_000L).report();
                judge(ledger);
                assertEquals(0, opMarkersAtKill, "op markers written before the kill (transactionOpBatchInterval=60000):"
                    + " the kill did not fall between END_TRANSACTION and the markers");
                // A rollback leaves nothing but its marker, which the kill lost; it is durably decided only if the
                // scan's committed offset passed it before the kill. Any other must be asked again.
                assertEquals(List.of(), unaskedRollbacks.stream().filter(k -> ledger.halfQueueOffset(k) >= scanAtKill)
                    .limit(20).toList(), "rolled back before the kill, its marker lost and the scan offset (" + scanAtKill
                    + ") not past it, yet not asked again after the restart (" + progress.describe() + ")");
            } finally {
                TransactionLedger.shutdown(producer);
            }
            broker.stopGracefully();
        }
    }

    @Test
    void killsAtRandomPointsOfManyTransactionsLoseNoCommitDuplicateNoneAndStoreNoRollback() throws Exception {
        int cycles = Figures.scaled("transactionCrashCycles", 4);
        long seed = Long.getLong("basalt.reliability.seed", System.nanoTime());
        System.out.println("RELIABILITY transaction-crash-loop seed=" + seed);
        long started = System.nanoTime();
        Random random = new Random(seed);
        TransactionLedger ledger = new TransactionLedger(seed, 2.0 / 3);
        try (BrokerProcess broker = BrokerProcess.create(dir, CHECKS);
             HalfQueueProgress progress = new HalfQueueProgress(broker.address())) {
            broker.start();
            createTopic(broker);
            TransactionMQProducer producer = ledger.producer(broker.address(), "pg-tx-crash-loop");
            AtomicBoolean sending = new AtomicBoolean(true);
            AtomicLong next = new AtomicLong();
            AtomicLong refused = new AtomicLong();
            List<Thread> senders = new ArrayList<>();
            try (TopicReader reader = new TopicReader(broker.address(), TOPIC, broker.brokerName(), QUEUES)) {
                for (int t = 0; t < THREADS; t++) {
                    Random mine = new Random(seed + t + 1);
                    Thread sender = new Thread(() -> {
                        while (sending.get()) {
                            String key = "tx-" + next.getAndIncrement();
                            // a third decide at once, a third stay UNKNOW until the end, a third take a while
                            int kind = mine.nextInt(3);
                            int delayMs = mine.nextInt(50);
                            TransactionLedger.Local local;
                            if (kind == 0) {
                                local = ledger::answer;
                            } else if (kind == 1) {
                                local = k -> LocalTransactionState.UNKNOW;
                            } else {
                                local = k -> {
                                    Thread.sleep(delayMs);
                                    return ledger.answer(k);
                                };
                            }
                            try {
                                ledger.send(producer, TOPIC, key, local);
                            } catch (Exception brokerAway) {
                                refused.incrementAndGet();
                                try {
                                    Thread.sleep(100);
                                } catch (InterruptedException e) {
                                    return;
                                }
                            }
                        }
                    }, "tx-sender-" + t);
                    sender.start();
                    senders.add(sender);
                }
                for (int cycle = 0; cycle < cycles; cycle++) {
                    long target = ledger.acknowledged() + 100 + random.nextInt(400);
                    await().atMost(ofSeconds(120)).pollInterval(ofMillis(5)).until(() -> ledger.acknowledged() >= target);
                    broker.killHard();
                    broker.start();
                    ledger.stored(reader.readNew());
                }
                sending.set(false);
                for (Thread t : senders) {
                    t.join(60_000);
                }
                ledger.reveal();
                awaitEverythingDecided(ledger, reader, progress, broker);

                Figures.of("transaction-crash-loop").put("seed", seed).put("cycles", cycles)
                    .put("transactions", ledger.acknowledged()).put("refused-sends", refused.get())
                    .put("committed", ledger.committed()).put("rolled-back", ledger.rolledBack())
                    .put("checks-answered", ledger.decisiveChecks())
                    .put("checks-repeated-after-answer", ledger.repeatedDecisiveChecks())
                    .put("duplicates", ledger.duplicates()).put("rollbacks-stored", ledger.storedRollbacks(1000).size())
                    .put("missing", ledger.missingCommits().size())
                    .put("seconds", (System.nanoTime() - started) / 1_000_000_000L).report();
                judge(ledger);
            } finally {
                sending.set(false);
                TransactionLedger.shutdown(producer);
            }
            broker.stopGracefully();
        }
    }

    /**
     * Reads the topic until every committed transaction is stored and the check scan has passed every half record,
     * then 3 s more (a second copy of a commit, or a late rollback stored, would show).
     */
    static void awaitEverythingDecided(TransactionLedger ledger, TopicReader reader, HalfQueueProgress progress,
                                       BrokerProcess broker) throws Exception {
        try {
            await().atMost(ofSeconds(120)).pollInterval(ofMillis(200)).ignoreExceptions().until(() -> {
                ledger.stored(reader.readNew());
                return ledger.allCommitsStored() && progress.unscanned() == 0;
            });
        } catch (RuntimeException e) {
            throw new AssertionError("not decided after the restart: " + ledger.missingCommits().size()
                + " commits missing (" + ledger.missingCommits().stream().limit(10).toList() + "), "
                + progress.describe() + ", " + ledger.decisiveChecks() + " checks answered\n" + tail(broker.output()), e);
        }
        long end = System.currentTimeMillis() + 3000;
        while (System.currentTimeMillis() < end) {
            ledger.stored(reader.readNew());
            Thread.sleep(100);
        }
    }

    static void judge(TransactionLedger ledger) {
        assertEquals(List.of(), ledger.missingCommits(), "committed, never stored");
        assertEquals(List.of(), ledger.duplicatedCommits(20), "committed, stored more than once");
        assertEquals(List.of(), ledger.storedRollbacks(20), "rolled back, yet stored in the topic");
        assertEquals(0, ledger.damaged(), "records whose body is not their key");
        assertEquals(0, ledger.strangers(), "records the producer never sent");
        assertTrue(ledger.committed() > 0 && ledger.rolledBack() > 0, "both outcomes were tried");
    }

    /** An exception and its causes, one per line. */
    static String causes(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            sb.append('\n').append(t);
        }
        return sb.toString();
    }

    private static String tail(String text) {
        return text.length() <= 6000 ? text : text.substring(text.length() - 6000);
    }

    private static void createTopic(BrokerProcess broker) throws Exception {
        DefaultMQAdminExt admin = new DefaultMQAdminExt(10_000);
        admin.setNamesrvAddr(broker.address());
        admin.setInstanceName(Clients.instanceName());
        admin.start();
        try {
            admin.createAndUpdateTopicConfig(broker.address(), new TopicConfig(TOPIC, QUEUES, QUEUES, 6));
        } finally {
            admin.shutdown();
        }
    }
}
