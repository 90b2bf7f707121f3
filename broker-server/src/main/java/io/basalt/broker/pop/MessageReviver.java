package io.basalt.broker.pop;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.retry.RetryBudget;
import io.basalt.broker.retry.RetryCounts;
import io.basalt.broker.retry.RetryTopics;
import io.basalt.broker.subscription.SubscriptionGroupConfig;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageResult;
import io.basalt.store.QueryMessageResult;
import io.basalt.store.SelectedBuffer;
import io.basalt.store.StoredMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-delivers one un-acked message of a checkpoint: reads exactly (CK topic, queueId, offset) — a message no longer
 * in the store counts as done — and stores a copy in the group's POP retry topic ({@code %RETRY%<group>_<topic>},
 * created with 1 queue, perm 6, the group's offset on it starting at 0), with every property kept (the message id
 * too), reconsumeTimes + 1 and {@code 1ST_POP_TIME}. When that copy would exceed the group's {@code retryMaxTimes}
 * it goes to {@code %DLQ%<group>} instead (the rule of the classic send-back, {@link RetryBudget}). Thread-safe.
 */
final class MessageReviver {
    private static final Logger log = LoggerFactory.getLogger(MessageReviver.class);
    private static final long PUT_TIMEOUT_MS = 10_000;
    private static final String PROPERTY_RETRY_TOPIC = "RETRY_TOPIC";
    /** The timer and delay properties of the original: the copy is due now, not re-scheduled. */
    private static final String[] SCHEDULING_PROPERTIES = {"TIMER_DELIVER_MS", "TIMER_DELAY_SEC", "TIMER_DELAY_MS",
        "TIMER_OUT_MS", "TIMER_ENQUEUE_MS", "TIMER_DEQUEUE_MS", "TIMER_ROLL_TIMES", "TIMER_DEL_UNIQKEY",
        MessageProperties.DELAY_TIME_LEVEL, "REAL_TOPIC", "REAL_QID", "__CRC32#", PopConstants.POP_CK};

    /**
     * Basalt's mark on a re-delivered copy: the UNIQ_KEY of the CK record it was re-put for. With the message id the
     * copy keeps, it tells whether a CK read again (after a crash or a new master term, from revive progress older
     * than the re-puts) was already served, so its messages are not put a second time.
     */
    static final String REVIVED_FOR_CK = "BASALT_REVIVED_FOR_CK";
    /** Most copies of one message id looked at in the target topic (one per revive of it). */
    private static final int MAX_COPIES_LOOKED_AT = 64;

    enum Outcome { REVIVED, ALREADY_REVIVED, GONE, FAILED }

    private final MessageStore store;
    private final TopicConfigManager topics;
    private final SubscriptionGroupManager groups;
    private final ConsumerOffsetManager offsets;
    private final InetSocketAddress storeHost;
    private final PopCounters counters;
    private final RetryCounts retryCounts;

    MessageReviver(MessageStore store, TopicConfigManager topics, SubscriptionGroupManager groups,
                   ConsumerOffsetManager offsets, InetSocketAddress storeHost, PopCounters counters,
                   RetryCounts retryCounts) {
        this.store = store;
        this.topics = topics;
        this.groups = groups;
        this.offsets = offsets;
        this.storeHost = storeHost;
        this.counters = counters;
        this.retryCounts = retryCounts;
    }

    /** False when the CK's topic or group was deleted: nothing is re-delivered for it. */
    boolean stillConsumed(CheckPoint ck) {
        return topics.get(ck.topic()) != null && groups.get(ck.group()).isPresent();
    }

    Outcome revive(CheckPoint ck, long offset) {
        return revive(ck, offset, false);
    }

    /**
     * @param mayBeDone the CK may have been revived before this reader started (it was read again from older
     *                  progress): a copy already stored for it in the target topic makes this ALREADY_REVIVED
     */
    Outcome revive(CheckPoint ck, long offset, boolean mayBeDone) {
        long physical = store.getCommitLogOffsetInQueue(ck.topic(), ck.queueId(), offset);
        StoredMessage original = physical < 0 ? null : store.lookMessageByOffset(physical);
        if (original == null || original.queueOffset() != offset || !ck.topic().equals(original.topic())) {
            log.info("message {}@{}@{} of a POP checkpoint of group {} is no longer in the store: not re-delivered",
                ck.topic(), ck.queueId(), offset, ck.group());
            return Outcome.GONE;
        }
        int retryMaxTimes = groups.get(ck.group()).map(SubscriptionGroupConfig::retryMaxTimes)
            .orElse(SubscriptionGroupConfig.defaults(ck.group()).retryMaxTimes());
        int next = original.reconsumeTimes() + 1;
        boolean toDlq = RetryBudget.exhausted(next, retryMaxTimes);
        String normalTopic = normalTopic(ck);
        String target = toDlq ? RetryTopics.dlqTopic(ck.group())
            : RetryTopics.isRetryTopic(ck.topic()) ? ck.topic() : PopRetryTopics.v1(ck.group(), ck.topic());
        try {
            TopicConfig config = topics.createIfAbsent(target, 1, Perm.READ | Perm.WRITE);
            if (!config.isWritable()) {
                log.warn("POP re-delivery to {} refused: the topic is not writable; retried", target);
                return Outcome.FAILED;
            }
        } catch (IOException e) {
            log.warn("creating {} for a POP re-delivery failed: {}", target, e.toString());
            return Outcome.FAILED;
        }
        if (!toDlq && offsets.queryOffset(ck.group(), target, 0) < 0) {
            offsets.commitOffset(null, ck.group(), target, 0, 0);
        }
        if (mayBeDone && alreadyStored(target, original.property(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX), ck)) {
            log.info("message {}@{}@{} of the POP checkpoint {} was re-delivered to {} before: not put again",
                ck.topic(), ck.queueId(), offset, ck.uniqKey(), target);
            return Outcome.ALREADY_REVIVED;
        }
        Map<String, String> properties = original.propertyMap();
        for (String name : SCHEDULING_PROPERTIES) {
            properties.remove(name);
        }
        properties.put(REVIVED_FOR_CK, ck.uniqKey());
        properties.putIfAbsent(PopConstants.FIRST_POP_TIME, Long.toString(ck.popTime()));
        if (toDlq) {
            properties.putIfAbsent(PROPERTY_RETRY_TOPIC, normalTopic);
        }
        BrokerMessage copy = BrokerMessage.builder().topic(target).queueId(0).flag(original.flag())
            .body(original.body()).propertiesString(MessageProperties.toPropertiesString(properties))
            .bornTimestamp(original.bornTimestamp()).bornHost(storeHost).storeHost(storeHost)
            .sysFlag(original.sysFlag()).reconsumeTimes(next).build();
        try {
            PutMessageResult result = store.asyncPutMessage(copy).get(PUT_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            if (!result.status().isStored()) {
                log.warn("POP re-delivery of {}@{}@{} to {} not stored: {}; retried", ck.topic(), ck.queueId(),
                    offset, target, result.status());
                return Outcome.FAILED;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Outcome.FAILED;
        } catch (ExecutionException | TimeoutException e) {
            log.warn("POP re-delivery of {}@{}@{} to {} failed: {}; retried", ck.topic(), ck.queueId(), offset,
                target, e.toString());
            return Outcome.FAILED;
        }
        if (toDlq) {
            counters.countDeadLettered();
            retryCounts.deadLettered(ck.group(), target, normalTopic, copy.uniqKey(), next, copy.storeTimestamp());
        } else {
            counters.countRevived();
        }
        return Outcome.REVIVED;
    }

    /**
     * Whether {@code target} holds a copy of the message re-put for this CK, found through the message index by the
     * message id (copies are stored after the CK's pop). Without a message id or with the index off nothing is found,
     * and the message is re-delivered again: a duplicate, never a loss.
     */
    private boolean alreadyStored(String target, String uniqKey, CheckPoint ck) {
        if (uniqKey == null || uniqKey.isEmpty()) {
            return false;
        }
        QueryMessageResult copies = store.queryMessage(target, uniqKey, MAX_COPIES_LOOKED_AT, ck.popTime(),
            Long.MAX_VALUE);
        try {
            for (SelectedBuffer b : copies.messages()) {
                StoredMessage copy = store.lookMessageByOffset(b.startOffset());
                if (copy != null && ck.uniqKey().equals(copy.property(REVIVED_FOR_CK))) {
                    return true;
                }
            }
            return false;
        } finally {
            copies.close();
        }
    }

    /** The topic the group consumes: the CK's, or the one its POP retry topic names. */
    private static String normalTopic(CheckPoint ck) {
        String v1 = PopRetryTopics.v1(ck.group(), "");
        String v2 = PopRetryTopics.v2(ck.group(), "");
        if (ck.topic().startsWith(v1)) {
            return ck.topic().substring(v1.length());
        }
        if (ck.topic().startsWith(v2)) {
            return ck.topic().substring(v2.length());
        }
        return ck.topic();
    }
}
