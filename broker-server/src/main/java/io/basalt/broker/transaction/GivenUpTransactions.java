package io.basalt.broker.transaction;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;

import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageResult;
import io.basalt.store.StoredMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives up a half message (RocketMQ's {@code resolveDiscardMsg}): after {@code transactionCheckMax} checks, or when
 * it is older than {@code fileReservedTime}, it is copied into {@code TRANS_CHECK_MAX_TIME_TOPIC} queue 0 (the topic
 * is created on first use, 1 queue, perm 6, and written to topics.json), logged on {@code RocketmqTransaction} with
 * what an operator needs to resume it (RESUME_CHECK_HALF_MESSAGE takes the given-up record's offsetMsgId), counted
 * ({@link TransactionCounters#givenUp}) and taken off the pending count. The transaction is neither committed nor
 * rolled back. Called on the scan thread.
 */
final class GivenUpTransactions {
    private static final Logger log = LoggerFactory.getLogger("RocketmqTransaction");
    private static final long PUT_TIMEOUT_MS = 10_000;

    private final MessageStore store;
    private final TopicConfigManager topics;
    private final TransactionCounters counters;
    private final PendingHalfMessages pending;
    private final InetSocketAddress storeHost;

    GivenUpTransactions(MessageStore store, TopicConfigManager topics, TransactionCounters counters,
                        PendingHalfMessages pending, InetSocketAddress storeHost) {
        this.store = store;
        this.topics = topics;
        this.counters = counters;
        this.pending = pending;
        this.storeHost = storeHost;
    }

    /**
     * Copies {@code half}, at {@code halfQueueOffset} in the half queue, into TRANS_CHECK_MAX_TIME_TOPIC; false when
     * that could not be written (the scan then keeps its place and tries again next time).
     */
    boolean giveUp(StoredMessage half, Map<String, String> properties, long halfQueueOffset, String why) {
        String realTopic = HalfMessages.realTopic(half);
        try {
            topics.createIfAbsent(TransactionalMessages.CHECK_MAX_TIME_TOPIC, 1, Perm.READ | Perm.WRITE);
        } catch (IOException e) {
            log.error("Creating {} to give up a half message failed: {}", TransactionalMessages.CHECK_MAX_TIME_TOPIC,
                e.toString());
            return false;
        }
        BrokerMessage copy = HalfMessages.givenUpCopy(half, properties, storeHost);
        PutMessageResult put = HalfQueueWrites.put(store, copy, PUT_TIMEOUT_MS);
        if (put == null || !put.status().isStored()) {
            log.error("Put checked-too-many-time half message to {} failed ({}): real topic={}, msgId={}",
                TransactionalMessages.CHECK_MAX_TIME_TOPIC, put, realTopic, half.offsetMsgId());
            return false;
        }
        counters.givenUp(realTopic);
        pending.removed(realTopic);
        log.warn("Half message given up ({}) into {}: topic={}, msgId={}, transactionId={}, producerGroup={}, "
                + "halfOffset={}, checks={}; resume with RESUME_CHECK_HALF_MESSAGE msgId={}", why,
            TransactionalMessages.CHECK_MAX_TIME_TOPIC, realTopic,
            properties.get(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX), HalfMessages.transactionId(properties),
            HalfMessages.producerGroup(properties), halfQueueOffset, HalfMessages.checkTimes(properties),
            copy.offsetMsgId());
        return true;
    }
}
