package io.basalt.broker.retry;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happened to the messages consumers gave back, per consumer group: stored as a retry, written to the
 * group's DLQ, or dropped because the group has no retry queues ({@code retryQueueNums <= 0}, which RocketMQ
 * answers SUCCESS without storing anything). Every DLQ write is logged, as RocketMQ's RocketmqDLQ logger
 * does; a drop is logged once per group (it repeats for every failed message of a misconfigured group).
 *
 * <p>Called by the send and send-back processors on their threads; read by the metrics scrape and the status
 * page on theirs. Thread-safe; counting a known group allocates nothing.
 */
public final class RetryCounts {
    private static final Logger log = LoggerFactory.getLogger(RetryCounts.class);
    /** RocketMQ logs dead letters to a logger of their own; so does Basalt, under the same name. */
    private static final Logger dlqLog = LoggerFactory.getLogger("RocketmqDLQ");

    /** The counts of one group; the totals since start. */
    public record GroupCounts(long retries, long deadLettered, long dropped) {
    }

    private static final class Counters {
        final LongAdder retries = new LongAdder();
        final LongAdder deadLettered = new LongAdder();
        final LongAdder dropped = new LongAdder();
        volatile boolean dropLogged;
    }

    private final ConcurrentHashMap<String, Counters> byGroup = new ConcurrentHashMap<>();
    /** Dead letters by group, then by the topic the message was first sent to (RocketMQ's send_to_dlq metric). */
    private final ConcurrentHashMap<String, ConcurrentHashMap<String, LongAdder>> deadLetteredByTopic =
        new ConcurrentHashMap<>();

    private Counters of(String group) {
        Counters c = byGroup.get(group);
        return c != null ? c : byGroup.computeIfAbsent(group, g -> new Counters());
    }

    /** A message of {@code group} was stored for another delivery. */
    public void retried(String group) {
        of(group).retries.increment();
    }

    /**
     * A message of {@code group} was stored in its DLQ.
     *
     * @param originTopic    the topic the message was first sent to
     * @param reconsumeTimes the reconsumeTimes of the DLQ record
     */
    public void deadLettered(String group, String dlqTopic, String originTopic, String uniqKey, int reconsumeTimes,
                             long storeTimestamp) {
        of(group).deadLettered.increment();
        if (originTopic != null) {
            deadLetteredByTopic.computeIfAbsent(group, g -> new ConcurrentHashMap<>())
                .computeIfAbsent(originTopic, t -> new LongAdder()).increment();
        }
        dlqLog.info("send msg to DLQ {}, originalTopic={}, consumerGroup={}, msgUniqKey={}, reconsumeTimes={}, "
            + "storeTimestamp={}", dlqTopic, originTopic, group, uniqKey, reconsumeTimes, storeTimestamp);
    }

    /** A message of {@code group} was given back but not stored: the group has no retry queues. */
    public void dropped(String group, int retryQueueNums) {
        Counters c = of(group);
        c.dropped.increment();
        if (!c.dropLogged) {
            c.dropLogged = true;
            log.warn("consumer group {} has retryQueueNums={}: the messages its consumers give back are dropped, "
                + "not retried (RocketMQ's behaviour); counted in basalt_consumer_retry_dropped_total, logged once",
                group, retryQueueNums);
        }
    }

    /** The counts of every group that had any, by group name. */
    public Map<String, GroupCounts> snapshot() {
        Map<String, GroupCounts> all = new TreeMap<>();
        byGroup.forEach((group, c) -> all.put(group,
            new GroupCounts(c.retries.sum(), c.deadLettered.sum(), c.dropped.sum())));
        return all;
    }

    /** Dead letters by group, then by original topic. */
    public Map<String, Map<String, Long>> deadLetteredByTopic() {
        Map<String, Map<String, Long>> all = new TreeMap<>();
        deadLetteredByTopic.forEach((group, topics) -> {
            Map<String, Long> byTopic = new TreeMap<>();
            topics.forEach((topic, n) -> byTopic.put(topic, n.sum()));
            all.put(group, byTopic);
        });
        return all;
    }

    /** The counts of {@code group} (zeros when it had none). */
    public GroupCounts countsOf(String group) {
        Counters c = byGroup.get(group);
        return c == null ? new GroupCounts(0, 0, 0) : new GroupCounts(c.retries.sum(), c.deadLettered.sum(), c.dropped.sum());
    }
}
