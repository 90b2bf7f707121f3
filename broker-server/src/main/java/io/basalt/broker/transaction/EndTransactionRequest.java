package io.basalt.broker.transaction;

import io.basalt.broker.processor.RequestFields;
import io.basalt.remoting.protocol.RemotingCommand;

/**
 * RocketMQ's {@code EndTransactionRequestHeader}: which half message (its half-queue and CommitLog offsets, as the
 * send result or the check gave them), the producer group, the decision (8 commit, 12 rollback, 0 unknown), whether it answers a back-check.
 */
record EndTransactionRequest(String producerGroup, long tranStateTableOffset, long commitLogOffset,
                             int commitOrRollback, boolean fromTransactionCheck, String msgId, String transactionId,
                             String brokerName) {

    static EndTransactionRequest parse(RemotingCommand request) throws RequestFields.BadRequestException {
        RequestFields f = new RequestFields(request);
        String producerGroup = f.requireString("producerGroup");
        long tranStateTableOffset = f.requireLong("tranStateTableOffset");
        long commitLogOffset = f.requireLong("commitLogOffset");
        int commitOrRollback = f.requireInt("commitOrRollback");
        return new EndTransactionRequest(producerGroup, tranStateTableOffset, commitLogOffset, commitOrRollback,
            f.bool("fromTransactionCheck", false), f.requireString("msgId"), f.string("transactionId"), f.string("bname"));
    }

    @Override
    public String toString() {
        return "EndTransactionRequestHeader{producerGroup=" + producerGroup + ", tranStateTableOffset="
            + tranStateTableOffset + ", commitLogOffset=" + commitLogOffset + ", commitOrRollback=" + commitOrRollback
            + ", fromTransactionCheck=" + fromTransactionCheck + ", msgId=" + msgId + ", transactionId=" + transactionId
            + ", bname=" + brokerName + "}";
    }
}
