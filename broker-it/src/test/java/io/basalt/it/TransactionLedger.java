package io.basalt.it;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.client.producer.TransactionSendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * The transactions a test runs through the official 5.2.0 {@link TransactionMQProducer}, and what became of them.
 * Each transaction is a message key (the body repeats it) whose outcome, COMMIT or ROLLBACK, is drawn from a
 * seeded random before its half message is sent. The ledger is the producers' {@link TransactionListener}:
 * <ul>
 *   <li>{@code executeLocalTransaction} does what the send asked ({@link Local}: answer at once, answer UNKNOW,
 *       block until the broker is killed, ...);</li>
 *   <li>{@code checkLocalTransaction} answers the outcome once the local transaction has {@link #answer stated}
 *       it or the test has {@link #reveal() revealed} every outcome, and UNKNOW before (as far as the broker can tell the local transaction is still running). Every check is
 *       counted.</li>
 * </ul>
 * Records read from the real topic ({@link #stored}) are counted per key, so the test can judge: every committed,
 * acknowledged transaction stored exactly once, none rolled back ever, nothing the ledger does not know.
 * Thread-safe.
 */
public final class TransactionLedger implements TransactionListener {
    public enum Outcome { COMMIT, ROLLBACK }

    /** What {@code executeLocalTransaction} does for one send (the send's argument). */
    @FunctionalInterface
    public interface Local {
        LocalTransactionState run(String key) throws Exception;
    }

    private final Random random;
    private final double commitShare;
    private final Map<String, Outcome> outcomes = new ConcurrentHashMap<>();
    private final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    /** The half-queue offset the broker answered for each acknowledged half send. */
    private final Map<String, Long> halfOffsets = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> storedCopies = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> decisiveChecks = new ConcurrentHashMap<>();
    private final AtomicLong unknownChecks = new AtomicLong();
    private final Set<String> checked = ConcurrentHashMap.newKeySet();
    private final Set<String> revealedKeys = ConcurrentHashMap.newKeySet();
    private final AtomicLong strangerChecks = new AtomicLong();
    private final AtomicLong damaged = new AtomicLong();
    private final AtomicLong strangers = new AtomicLong();
    private volatile boolean revealed;

    /** Outcomes drawn from {@code seed}: COMMIT with probability {@code commitShare}, else ROLLBACK. */
    public TransactionLedger(long seed, double commitShare) {
        this.random = new Random(seed);
        this.commitShare = commitShare;
    }

    /**
     * A started producer of {@code group} with this ledger as its listener: no send retries (a retry would make a
     * second half message of the same transaction), heartbeats every second (so a restarted broker knows the
     * group's channel soon), a check executor of two threads with an unbounded queue (no check request dropped).
     */
    public TransactionMQProducer producer(String namesrvAddr, String group) throws Exception {
        TransactionMQProducer p = new TransactionMQProducer(group);
        p.setNamesrvAddr(namesrvAddr);
        p.setInstanceName(Clients.instanceName());
        p.setSendMsgTimeout(10_000);
        p.setRetryTimesWhenSendFailed(0);
        p.setHeartbeatBrokerInterval(1000);
        p.setPollNameServerInterval(1000);
        ExecutorService checks = new ThreadPoolExecutor(2, 2, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
            r -> new Thread(r, "it-transaction-check-" + group));
        p.setExecutorService(checks);
        p.setTransactionListener(this);
        p.start();
        return p;
    }

    /** Stops {@code producer} and its check executor. */
    public static void shutdown(TransactionMQProducer producer) {
        producer.shutdown();
        producer.getExecutorService().shutdownNow();
    }

    /**
     * Draws the outcome of {@code key} and sends its half message to {@code topic}; {@code local} is what the
     * local transaction does. Returns the result, or throws if the broker did not answer SEND_OK (the outcome
     * stays drawn: a half message the broker stored before failing is still answered when checked).
     */
    public TransactionSendResult send(TransactionMQProducer producer, String topic, String key, Local local) throws Exception {
        Outcome outcome;
        synchronized (random) {
            outcome = random.nextDouble() < commitShare ? Outcome.COMMIT : Outcome.ROLLBACK;
        }
        outcomes.put(key, outcome);
        Message msg = new Message(topic, "tx", key, key.getBytes(StandardCharsets.UTF_8));
        TransactionSendResult result = producer.sendMessageInTransaction(msg, local);
        if (result.getSendStatus() != SendStatus.SEND_OK) {
            throw new IllegalStateException("half send of " + key + " answered " + result);
        }
        halfOffsets.put(key, result.getQueueOffset());
        acknowledged.add(key);
        return result;
    }

    @Override
    public LocalTransactionState executeLocalTransaction(Message msg, Object arg) {
        try {
            return ((Local) arg).run(msg.getKeys());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return LocalTransactionState.UNKNOW;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public LocalTransactionState checkLocalTransaction(MessageExt msg) {
        Outcome outcome = outcomes.get(String.valueOf(msg.getKeys()));
        if (outcome == null) {
            strangerChecks.incrementAndGet();
            return LocalTransactionState.UNKNOW;
        }
        checked.add(msg.getKeys());
        if (!revealed && !revealedKeys.contains(msg.getKeys())) {
            unknownChecks.incrementAndGet();
            return LocalTransactionState.UNKNOW;
        }
        decisiveChecks.computeIfAbsent(msg.getKeys(), k -> new AtomicLong()).incrementAndGet();
        return state(outcome);
    }

    /** From now on checks answer each transaction's outcome. */
    public void reveal() {
        revealed = true;
    }

    /**
     * The outcome of {@code key} as the producer states it, from now on also to checks: a {@link Local} that
     * decides at once.
     */
    public LocalTransactionState answer(String key) {
        revealedKeys.add(key);
        return state(outcomes.get(key));
    }

    private static LocalTransactionState state(Outcome outcome) {
        return outcome == Outcome.COMMIT ? LocalTransactionState.COMMIT_MESSAGE : LocalTransactionState.ROLLBACK_MESSAGE;
    }

    /** Counts records read from the real topic (any number of calls; duplicates are what they count). */
    public void stored(List<MessageExt> records) {
        for (MessageExt m : records) {
            String key = String.valueOf(m.getKeys());
            if (!outcomes.containsKey(key)) {
                strangers.incrementAndGet();
                continue;
            }
            if (!key.equals(new String(m.getBody(), StandardCharsets.UTF_8))) {
                damaged.incrementAndGet();
            }
            storedCopies.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
        }
    }

    private long copies(String key) {
        AtomicLong n = storedCopies.get(key);
        return n == null ? 0 : n.get();
    }

    private Set<String> keys(Outcome outcome, boolean onlyAcknowledged) {
        Set<String> keys = new TreeSet<>();
        outcomes.forEach((k, o) -> {
            if (o == outcome && (!onlyAcknowledged || acknowledged.contains(k))) {
                keys.add(k);
            }
        });
        return keys;
    }

    public long acknowledged() {
        return acknowledged.size();
    }

    public long committed() {
        return keys(Outcome.COMMIT, true).size();
    }

    public long rolledBack() {
        return keys(Outcome.ROLLBACK, true).size();
    }

    /** Whether every acknowledged COMMIT has a record in the topic. */
    public boolean allCommitsStored() {
        return missingCommits().isEmpty();
    }

    /** Acknowledged COMMITs with no record in the topic. */
    public List<String> missingCommits() {
        return keys(Outcome.COMMIT, true).stream().filter(k -> copies(k) == 0).toList();
    }

    /** COMMITs with more than one record, as {@code key x copies} (at most {@code limit}). */
    public List<String> duplicatedCommits(int limit) {
        return keys(Outcome.COMMIT, false).stream().filter(k -> copies(k) > 1).limit(limit)
            .map(k -> k + " x" + copies(k)).toList();
    }

    /** Records beyond the first of each COMMIT. */
    public long duplicates() {
        return keys(Outcome.COMMIT, false).stream().mapToLong(k -> Math.max(0, copies(k) - 1)).sum();
    }

    /** ROLLBACKs that have a record in the topic (at most {@code limit}). */
    public List<String> storedRollbacks(int limit) {
        return keys(Outcome.ROLLBACK, false).stream().filter(k -> copies(k) > 0).limit(limit).toList();
    }

    /** Acknowledged transactions whose check no producer ever answered with their outcome. */
    public List<String> neverAnsweredByACheck(int limit) {
        return outcomes.keySet().stream().filter(acknowledged::contains).filter(k -> !decisiveChecks.containsKey(k))
            .sorted().limit(limit).toList();
    }

    /** The half-queue offset of {@code key}'s half message, -1 when its send was not acknowledged. */
    public long halfQueueOffset(String key) {
        return halfOffsets.getOrDefault(key, -1L);
    }

    /** Acknowledged transactions of {@code outcome} whose check no producer ever answered. */
    public List<String> neverAnsweredByACheck(Outcome outcome, int limit) {
        return keys(outcome, true).stream().filter(k -> !decisiveChecks.containsKey(k)).limit(limit).toList();
    }

    /** Checks answered with an outcome, over all transactions. */
    public long decisiveChecks() {
        return decisiveChecks.values().stream().mapToLong(AtomicLong::get).sum();
    }

    /** Checks of transactions already answered with their outcome before (a check repeated after its answer). */
    public long repeatedDecisiveChecks() {
        return decisiveChecks.values().stream().mapToLong(n -> Math.max(0, n.get() - 1)).sum();
    }

    /** Checks answered UNKNOW because the outcome was not revealed yet. */
    public long unknownChecks() {
        return unknownChecks.get();
    }

    /** Transactions the producers were asked about at least once. */
    public long checkedTransactions() {
        return checked.size();
    }

    /** Checks of messages the ledger never sent. */
    public long strangerChecks() {
        return strangerChecks.get();
    }

    /** Records of the ledger's transactions read from the topic, duplicates included. */
    public long storedRecords() {
        return storedCopies.values().stream().mapToLong(AtomicLong::get).sum();
    }

    /** Records whose body is not their key. */
    public long damaged() {
        return damaged.get();
    }

    /** Records in the topic the ledger never sent. */
    public long strangers() {
        return strangers.get();
    }
}
