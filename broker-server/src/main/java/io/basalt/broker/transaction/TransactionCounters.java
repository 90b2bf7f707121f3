package io.basalt.broker.transaction;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts of what happened to transactional messages, per real topic, for the metrics, the status page and the
 * runtime info: half messages prepared, committed, rolled back, checked (a CHECK_TRANSACTION_STATE really sent),
 * given up; END_TRANSACTION requests refused, per reason; and the age of the oldest undecided half message, which
 * the check scan reports. Thread-safe; counters only grow.
 */
public final class TransactionCounters {

    /** One topic's counts at one moment. */
    public record TopicCounts(long prepared, long committed, long rolledBack, long checked, long givenUp,
                              long oldestUndecidedAgeMs) {
    }

    private static final class Topic {
        final LongAdder prepared = new LongAdder();
        final LongAdder committed = new LongAdder();
        final LongAdder rolledBack = new LongAdder();
        final LongAdder checked = new LongAdder();
        final LongAdder givenUp = new LongAdder();
        volatile long oldestUndecidedAgeMs;
    }

    private final ConcurrentMap<String, Topic> topics = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, LongAdder> endRefusals = new ConcurrentHashMap<>();
    private final LongAdder duplicateDecisions = new LongAdder();

    private Topic topic(String realTopic) {
        return topics.computeIfAbsent(realTopic, t -> new Topic());
    }

    public void prepared(String realTopic) {
        topic(realTopic).prepared.increment();
    }

    public void committed(String realTopic) {
        topic(realTopic).committed.increment();
    }

    public void rolledBack(String realTopic) {
        topic(realTopic).rolledBack.increment();
    }

    /** A CHECK_TRANSACTION_STATE was written to a producer's connection. */
    public void checked(String realTopic) {
        topic(realTopic).checked.increment();
    }

    public void givenUp(String realTopic) {
        topic(realTopic).givenUp.increment();
    }

    /** An END_TRANSACTION refused or ignored; {@code reason} is a short stable label (e.g. {@code producer_group}). */
    public void endRefused(String reason) {
        endRefusals.computeIfAbsent(reason, r -> new LongAdder()).increment();
    }

    /** A second decision for a transaction already decided, ignored. */
    public void duplicateDecision() {
        duplicateDecisions.increment();
    }

    /**
     * The scan's view of the undecided half messages: the age of the oldest per real topic. Topics not named have
     * none undecided.
     */
    public void oldestUndecided(Map<String, Long> ageMsByTopic) {
        for (Map.Entry<String, Long> e : ageMsByTopic.entrySet()) {
            topic(e.getKey()).oldestUndecidedAgeMs = e.getValue();
        }
        for (Map.Entry<String, Topic> e : topics.entrySet()) {
            if (!ageMsByTopic.containsKey(e.getKey())) {
                e.getValue().oldestUndecidedAgeMs = 0;
            }
        }
    }

    /** Every topic's counts, by topic name. */
    public Map<String, TopicCounts> byTopic() {
        Map<String, TopicCounts> out = new TreeMap<>();
        topics.forEach((name, t) -> out.put(name, new TopicCounts(t.prepared.sum(), t.committed.sum(),
            t.rolledBack.sum(), t.checked.sum(), t.givenUp.sum(), t.oldestUndecidedAgeMs)));
        return out;
    }

    /** END_TRANSACTION refusals by reason. */
    public Map<String, Long> endRefusals() {
        Map<String, Long> out = new TreeMap<>();
        endRefusals.forEach((reason, n) -> out.put(reason, n.sum()));
        return out;
    }

    public long duplicateDecisions() {
        return duplicateDecisions.sum();
    }
}
