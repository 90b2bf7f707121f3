package io.basalt.broker.transaction;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

import io.basalt.broker.processor.RequestFields;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageResult;
import io.basalt.store.StoredMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RESUME_CHECK_HALF_MESSAGE (323), admin: header {@code msgId} = the offsetMsgId of a half message given up into
 * {@code TRANS_CHECK_MAX_TIME_TOPIC} (or of a record in the half topic). The record is read, its
 * TRANSACTION_CHECK_TIMES set to 0, and it is written back into {@code RMQ_SYS_TRANS_HALF_TOPIC} queue 0, where the
 * back-check takes it up again: SUCCESS, or SYSTEM_ERROR "Put message back to RMQ_SYS_TRANS_HALF_TOPIC failed.", as
 * RocketMQ answers. Stricter than RocketMQ, which puts back whatever record the id names: an id that names no record,
 * a record of another topic or one without REAL_TOPIC, or a transaction already decided is refused with a remark
 * saying so, and so is a broker that does not accept writes (a slave). Safe for concurrent calls.
 */
public final class ResumeCheckHalfMessageProcessor implements RequestProcessor {
    private static final Logger log = LoggerFactory.getLogger("RocketmqTransaction");
    static final String PUT_FAILED = "Put message back to RMQ_SYS_TRANS_HALF_TOPIC failed.";
    private static final long PUT_TIMEOUT_MS = 10_000;

    private final MessageStore store;
    private final TransactionDecisions decisions;
    private final InetSocketAddress storeHost;
    private final BooleanSupplier writable;

    public ResumeCheckHalfMessageProcessor(MessageStore store, TransactionDecisions decisions,
                                           InetSocketAddress storeHost, BooleanSupplier writable) {
        this.store = store;
        this.decisions = decisions;
        this.storeHost = storeHost;
        this.writable = writable;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        if (request.code() != RequestCode.RESUME_CHECK_HALF_MESSAGE) {
            return CompletableFuture.completedFuture(RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                "request type " + request.code() + " not supported"));
        }
        RemotingCommand response;
        try {
            response = resume(new RequestFields(request).requireString("msgId"));
        } catch (RequestFields.BadRequestException e) {
            response = RequestFields.badRequest(e);
        }
        return CompletableFuture.completedFuture(response);
    }

    private RemotingCommand resume(String offsetMsgId) {
        if (!writable.getAsBoolean()) {
            return refuse(offsetMsgId, "this broker does not accept writes (not a serving master); resume it on the master");
        }
        StoredMessage record = store.viewMessageById(offsetMsgId);
        if (record == null) {
            return refuse(offsetMsgId, "no message with offsetMsgId " + offsetMsgId + " in this broker's store");
        }
        boolean ours = TransactionalMessages.CHECK_MAX_TIME_TOPIC.equals(record.topic())
            || TransactionalMessages.HALF_TOPIC.equals(record.topic());
        if (!ours || record.property(TransactionalMessages.PROPERTY_REAL_TOPIC) == null) {
            return refuse(offsetMsgId, "message " + offsetMsgId + " of topic " + record.topic()
                + " is not a transaction half message (" + TransactionalMessages.CHECK_MAX_TIME_TOPIC + " or "
                + TransactionalMessages.HALF_TOPIC + " with REAL_TOPIC)");
        }
        Optional<TransactionDecisions.Decision> decided = decisions.decisionFor(record);
        if (decided.isPresent()) {
            return refuse(offsetMsgId, "the transaction of message " + offsetMsgId + " is already decided ("
                + decided.get() + "); nothing to resume");
        }
        Map<String, String> properties = record.propertyMap();
        properties.put(TransactionalMessages.PROPERTY_TRANSACTION_CHECK_TIMES, "0");
        PutMessageResult put = HalfQueueWrites.put(store, HalfMessages.halfQueueCopy(record, properties, storeHost),
            PUT_TIMEOUT_MS);
        if (put == null || !put.status().isStored()) {
            log.error("Put message back to RMQ_SYS_TRANS_HALF_TOPIC failed ({}), msgId={}", put, offsetMsgId);
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, PUT_FAILED);
        }
        log.info("Put message back to RMQ_SYS_TRANS_HALF_TOPIC. real topic={}, msgId={}, half queue offset={}",
            HalfMessages.realTopic(record), offsetMsgId, put.appendResult().queueOffset());
        return RemotingCommand.response(ResponseCode.SUCCESS, null);
    }

    private static RemotingCommand refuse(String offsetMsgId, String reason) {
        log.warn("RESUME_CHECK_HALF_MESSAGE {} refused: {}", offsetMsgId, reason);
        return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, PUT_FAILED + " " + reason);
    }
}
