package io.basalt.broker.transaction;

import io.basalt.store.BrokerMessage;
import io.basalt.store.StoredMessage;

/**
 * The record a COMMIT puts into the real topic, as RocketMQ's {@code endMessageTransaction} builds it from the half
 * record: topic {@code REAL_TOPIC}, queue {@code REAL_QID}; body, flag, born time and host, store host and
 * reconsumeTimes of the half; its sysFlag with the transaction bits COMMIT (0x8); preparedTransactionOffset = the
 * half record's CommitLog offset; tags code recomputed from TAGS (RocketMQ 5.2.0's single- and multi-tag codes are
 * the same hash). The properties string is the half record's verbatim, so the stored committed message still
 * carries {@code TRAN_MSG=true}, {@code PGROUP}, {@code REAL_TOPIC}, {@code REAL_QID} and {@code __transactionId__}
 * (RocketMQ removes some of them from its in-memory map only after building the string).
 */
final class CommittedMessage {

    private CommittedMessage() {
    }

    /** Thrown when the half record does not say where it goes. */
    static final class NotAHalfMessage extends Exception {
        private static final long serialVersionUID = 1L;

        NotAHalfMessage(String message) {
            super(message);
        }
    }

    static BrokerMessage of(StoredMessage half) throws NotAHalfMessage {
        String realTopic = half.property(TransactionalMessages.PROPERTY_REAL_TOPIC);
        String realQueue = half.property(TransactionalMessages.PROPERTY_REAL_QUEUE_ID);
        if (realTopic == null || realQueue == null) {
            throw new NotAHalfMessage("the record at commit log offset " + half.physicalOffset() + " (topic "
                + half.topic() + ") has no " + TransactionalMessages.PROPERTY_REAL_TOPIC + "/"
                + TransactionalMessages.PROPERTY_REAL_QUEUE_ID + " property");
        }
        int queueId;
        try {
            queueId = Integer.parseInt(realQueue.trim());
        } catch (NumberFormatException e) {
            throw new NotAHalfMessage("the half message at commit log offset " + half.physicalOffset() + " has "
                + TransactionalMessages.PROPERTY_REAL_QUEUE_ID + "=" + realQueue + ", not a queue id");
        }
        return BrokerMessage.builder()
            .topic(realTopic)
            .queueId(queueId)
            .body(half.body())
            .flag(half.flag())
            .bornTimestamp(half.bornTimestamp())
            .bornHost(half.bornHost())
            .storeHost(half.storeHost())
            .reconsumeTimes(half.reconsumeTimes())
            .sysFlag(TransactionalMessages.withTransactionType(half.sysFlag(), TransactionalMessages.TRANSACTION_COMMIT_TYPE))
            .preparedTransactionOffset(half.physicalOffset())
            .propertiesString(half.properties())
            .build();
    }
}
