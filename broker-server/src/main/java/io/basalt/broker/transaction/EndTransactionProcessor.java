package io.basalt.broker.transaction;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import io.basalt.broker.processor.RequestFields;
import io.basalt.broker.transaction.TransactionDecisions.Decision;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageResult;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.StoreException;
import io.basalt.store.StoredMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * END_TRANSACTION (37), one-way as every RocketMQ client sends it, or two-way: RocketMQ's
 * {@code EndTransactionProcessor}, in its order. A slave (or a fenced master) refuses with SLAVE_NOT_AVAILABLE; an
 * unknown outcome (0) is only logged (the back-check asks again); for COMMIT and ROLLBACK the record at
 * {@code commitLogOffset} is read ("Find prepared transaction message failed" when there is none, or when it is not
 * a half message), a producer's late decision past the message's {@code CHECK_IMMUNITY_TIME_IN_SECONDS} is refused
 * with ILLEGAL_OPERATION (the check decides it), and the producer group and both offsets must match the half record
 * (SYSTEM_ERROR "The producer group wrong" / "The transaction state table offset wrong" / "The commit log offset
 * wrong"). Every refusal is logged on {@code RocketmqTransaction} with its reason and counted.
 *
 * <p>A commit puts the {@link CommittedMessage} and waits for it; PUT_OK, FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT and
 * SLAVE_NOT_AVAILABLE count as stored, and only then is the half message marked done. A rollback is only marked
 * done. Unlike RocketMQ, a transaction is decided once ({@link HalfMessageDecisions#claim}): a second COMMIT of a
 * committed transaction writes no second record, a decision contradicting the first is ignored; both still mark the
 * half offset they name done, and both are logged and counted as duplicate decisions. The two-way response is sent
 * after the decision is recorded.
 */
public final class EndTransactionProcessor implements RequestProcessor {
    private static final Logger log = LoggerFactory.getLogger("RocketmqTransaction");

    private final MessageStore store;
    private final BooleanSupplier writable;
    private final long transactionTimeOutMs;
    private final HalfMessageDecisions decisions;
    private final TransactionCounters counters;
    private final TransactionMetrics metrics;
    private final LongSupplier clock;

    /**
     * @param writable             whether this broker is a serving master (a slave or a fenced master refuses)
     * @param transactionTimeOutMs transactionTimeOut, the floor of a message's check immunity
     */
    public EndTransactionProcessor(MessageStore store, BooleanSupplier writable, long transactionTimeOutMs,
                                   HalfMessageDecisions decisions, TransactionCounters counters,
                                   TransactionMetrics metrics, LongSupplier clock) {
        this.store = store;
        this.writable = writable;
        this.transactionTimeOutMs = transactionTimeOutMs;
        this.decisions = decisions;
        this.counters = counters;
        this.metrics = metrics;
        this.clock = clock;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        EndTransactionRequest header;
        try {
            header = EndTransactionRequest.parse(request);
        } catch (RequestFields.BadRequestException e) {
            return refused("bad_request", ResponseCode.SYSTEM_ERROR, e.getMessage(), null);
        }
        if (!writable.getAsBoolean()) {
            return refused("slave", ResponseCode.SLAVE_NOT_AVAILABLE, "Message store is slave mode, so end transaction"
                + " is forbidden (or this master was fenced by a newer one)", header);
        }
        int type = header.commitOrRollback();
        if (type == TransactionalMessages.END_UNKNOWN) {
            log.warn("{} producer[{}] transaction state is unknown, nothing done; the back-check asks again. {} Remark: {}",
                header.fromTransactionCheck() ? "Check:" : "End transaction:", context.remoteAddress(), header,
                request.remark());
            return done(ResponseCode.SUCCESS, "unknown transaction state: nothing done, the back-check will ask again");
        }
        if (type != TransactionalMessages.TRANSACTION_COMMIT_TYPE && type != TransactionalMessages.TRANSACTION_ROLLBACK_TYPE) {
            return refused("bad_request", ResponseCode.SYSTEM_ERROR, "commitOrRollback is " + type
                + ": not 8 (commit), 12 (rollback) or 0 (unknown)", header);
        }
        if (header.fromTransactionCheck() || type == TransactionalMessages.TRANSACTION_ROLLBACK_TYPE) {
            log.info("{} producer[{}] {} the message. {} Remark: {}", header.fromTransactionCheck() ? "Check:" : "End transaction:",
                context.remoteAddress(), type == TransactionalMessages.TRANSACTION_COMMIT_TYPE ? "commits" : "rolls back",
                header, request.remark());
        }
        StoredMessage half = store.lookMessageByOffset(header.commitLogOffset());
        if (half == null || !TransactionalMessages.HALF_TOPIC.equals(half.topic())) {
            return refused("not_found", ResponseCode.SYSTEM_ERROR, "Find prepared transaction message failed"
                + (half == null ? "" : ": the record at commit log offset " + header.commitLogOffset() + " is in topic "
                + half.topic() + ", not " + TransactionalMessages.HALF_TOPIC), header);
        }
        if (pastImmunity(header, half)) {
            return refused("immunity", ResponseCode.ILLEGAL_OPERATION, "Message " + (type == TransactionalMessages
                .TRANSACTION_COMMIT_TYPE ? "commit" : "rollback") + " fail [producer end]. currentTimeMillis - bornTime >"
                + " checkImmunityTime, msgId=" + header.msgId() + ",commitLogOffset=" + header.commitLogOffset()
                + ", wait check", header);
        }
        String pgroup = half.property(TransactionalMessages.PROPERTY_PRODUCER_GROUP);
        if (pgroup == null || !pgroup.equals(header.producerGroup())) {
            return refused("producer_group", ResponseCode.SYSTEM_ERROR, "The producer group wrong", header);
        }
        if (half.queueOffset() != header.tranStateTableOffset()) {
            return refused("state_table_offset", ResponseCode.SYSTEM_ERROR, "The transaction state table offset wrong",
                header);
        }
        if (half.physicalOffset() != header.commitLogOffset()) {
            return refused("commit_log_offset", ResponseCode.SYSTEM_ERROR, "The commit log offset wrong", header);
        }
        Decision decision = type == TransactionalMessages.TRANSACTION_COMMIT_TYPE ? Decision.COMMIT : Decision.ROLLBACK;
        HalfMessageDecisions.Claim claim = decisions.claim(half, decision);
        if (!claim.granted()) {
            return alreadyDecided(header, half, decision, claim);
        }
        return decision == Decision.COMMIT ? commit(header, half) : rollback(half);
    }

    /**
     * RocketMQ's {@code rejectCommitOrRollback}: a producer's own decision (not a check's answer) for a message with
     * {@code CHECK_IMMUNITY_TIME_IN_SECONDS}, older than max(that, transactionTimeOut).
     */
    private boolean pastImmunity(EndTransactionRequest header, StoredMessage half) {
        if (header.fromTransactionCheck()) {
            return false;
        }
        String seconds = half.property(TransactionalMessages.PROPERTY_CHECK_IMMUNITY_TIME_IN_SECONDS);
        if (seconds == null || seconds.isEmpty()) {
            return false;
        }
        long immunity;
        try {
            immunity = Math.max(Long.parseLong(seconds.trim()) * 1000, transactionTimeOutMs);
        } catch (NumberFormatException e) {
            immunity = transactionTimeOutMs;
        }
        return clock.getAsLong() - half.bornTimestamp() > immunity;
    }

    private CompletableFuture<RemotingCommand> commit(EndTransactionRequest header, StoredMessage half) {
        BrokerMessage committed;
        try {
            committed = CommittedMessage.of(half);
        } catch (CommittedMessage.NotAHalfMessage e) {
            decisions.release(half, Decision.COMMIT);
            return refused("not_half_message", ResponseCode.SYSTEM_ERROR, e.getMessage(), header);
        }
        CompletableFuture<PutMessageResult> put;
        try {
            put = store.asyncPutMessage(committed);
        } catch (RuntimeException e) {
            decisions.release(half, Decision.COMMIT);
            throw e;
        }
        return put.handle((result, error) -> {
            if (error != null) {
                decisions.release(half, Decision.COMMIT);
                Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                if (cause instanceof StoreException) {
                    return refusedNow("commit_put_failed", ResponseCode.SERVICE_NOT_AVAILABLE,
                        "Service not available now: the committed message is not durable: " + cause.getMessage(), header);
                }
                throw error instanceof CompletionException c ? c : new CompletionException(error);
            }
            if (!result.status().isStored()) {
                decisions.release(half, Decision.COMMIT);
                return refusedNow("commit_put_failed", putFailureCode(result.status()), putFailureRemark(result), header);
            }
            decisions.markDone(half.queueOffset(), half, Decision.COMMIT);
            decisions.release(half, Decision.COMMIT);
            String realTopic = committed.topic();
            counters.committed(realTopic);
            metrics.decided(realTopic);
            return RemotingCommand.response(ResponseCode.SUCCESS, null);
        });
    }

    private CompletableFuture<RemotingCommand> rollback(StoredMessage half) {
        decisions.markDone(half.queueOffset(), half, Decision.ROLLBACK);
        decisions.release(half, Decision.ROLLBACK);
        String realTopic = half.property(TransactionalMessages.PROPERTY_REAL_TOPIC);
        if (realTopic != null) {
            counters.rolledBack(realTopic);
        }
        metrics.decided(realTopic);
        return done(ResponseCode.SUCCESS, null);
    }

    /**
     * The transaction was decided before (or is being decided by another request): nothing more is written; when the
     * first decision is settled, the half offset this request names is marked done with it. The duplicate is logged
     * and counted.
     */
    private CompletableFuture<RemotingCommand> alreadyDecided(EndTransactionRequest header, StoredMessage half,
                                                              Decision asked, HalfMessageDecisions.Claim claim) {
        Decision made = claim.existing();
        counters.duplicateDecision();
        String transaction = HalfMessageDecisions.transactionOf(half);
        if (!claim.settled()) {
            // the other request may still fail: then the transaction stays undecided and the check asks again
            log.warn("transaction {} is being {} by another request: this {} at half offset {} is ignored. {}",
                transaction, pastTense(made), asked, half.queueOffset(), header);
            return done(ResponseCode.SYSTEM_ERROR, "the transaction " + transaction + " is being " + pastTense(made)
                + " by another request; this " + asked + " is ignored");
        }
        decisions.markDone(half.queueOffset(), half, made);
        if (asked == made) {
            log.info("transaction {} was already {}: {} at half offset {} ignored, nothing written again. {}", transaction,
                pastTense(made), asked, half.queueOffset(), header);
            return done(ResponseCode.SUCCESS, "the transaction was already " + pastTense(made) + "; nothing done again");
        }
        log.warn("transaction {} was already {}: the conflicting {} at half offset {} is ignored. {}", transaction,
            pastTense(made), asked, half.queueOffset(), header);
        return done(ResponseCode.SYSTEM_ERROR, "the transaction " + transaction + " was already " + pastTense(made)
            + "; this " + asked + " is ignored");
    }

    private static String pastTense(Decision d) {
        return d == Decision.COMMIT ? "committed" : "rolled back";
    }

    private CompletableFuture<RemotingCommand> refused(String label, int code, String remark,
                                                       EndTransactionRequest header) {
        return CompletableFuture.completedFuture(refusedNow(label, code, remark, header));
    }

    private RemotingCommand refusedNow(String label, int code, String remark, EndTransactionRequest header) {
        counters.endRefused(label);
        log.warn("END_TRANSACTION refused ({}): {}. {}", label, remark, header == null ? "" : header);
        return RemotingCommand.response(code, remark);
    }

    /** RocketMQ's {@code sendFinalMessage} codes for a commit put that did not store. */
    private static int putFailureCode(PutMessageStatus status) {
        return switch (status) {
            case MESSAGE_ILLEGAL, PROPERTIES_SIZE_EXCEEDED, WHEEL_TIMER_MSG_ILLEGAL -> ResponseCode.MESSAGE_ILLEGAL;
            case SERVICE_NOT_AVAILABLE -> ResponseCode.SERVICE_NOT_AVAILABLE;
            default -> ResponseCode.SYSTEM_ERROR;
        };
    }

    private static String putFailureRemark(PutMessageResult result) {
        String base = switch (result.status()) {
            case CREATE_MAPPED_FILE_FAILED -> "Create mapped file failed.";
            case MESSAGE_ILLEGAL, PROPERTIES_SIZE_EXCEEDED -> "The message is illegal, maybe msg body or properties"
                + " length not matched.";
            case SERVICE_NOT_AVAILABLE -> "Service not available now.";
            case OS_PAGE_CACHE_BUSY -> "OS page cache busy, please try another machine";
            default -> result.status().name();
        };
        return "committing failed, the half message stays undecided: " + base
            + (result.reason() == null ? "" : " (" + result.reason() + ")");
    }

    private static CompletableFuture<RemotingCommand> done(int code, String remark) {
        return CompletableFuture.completedFuture(RemotingCommand.response(code, remark));
    }
}
