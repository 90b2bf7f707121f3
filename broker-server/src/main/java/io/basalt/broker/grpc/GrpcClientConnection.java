package io.basalt.broker.grpc;

import apache.rocketmq.v2.PrintThreadStackTraceCommand;
import apache.rocketmq.v2.RecoverOrphanedTransactionCommand;
import apache.rocketmq.v2.VerifyMessageCommand;
import apache.rocketmq.v2.TelemetryCommand;
import io.basalt.broker.transaction.TransactionalMessages;
import io.basalt.remoting.netty.RemotingConnectException;
import io.basalt.remoting.netty.RemotingSendRequestException;
import io.basalt.remoting.processor.RemotingConnection;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.store.StoredMessage;
import io.grpc.stub.StreamObserver;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A gRPC client as the broker's client registries see it: the connection its producers are registered with. A
 * request the broker sends it goes out on the client's Telemetry stream, translated: CHECK_TRANSACTION_STATE becomes
 * {@code recover_orphaned_transaction_command} (and the check copy's offsets are remembered for the EndTransaction
 * that answers it); a consumer's GET_CONSUMER_RUNNING_INFO and CONSUME_MESSAGE_DIRECTLY become
 * {@code print_thread_stack_trace_command} and {@code verify_message_command}, answered from the client's reply
 * (matched by nonce, within the caller's timeout). Other requests have no 5.x equivalent here and fail, so that the
 * caller knows nothing was delivered. Active while a Telemetry stream is attached.
 */
final class GrpcClientConnection implements RemotingConnection {
    private static final Logger log = LoggerFactory.getLogger(GrpcClientConnection.class);

    private final String clientId;
    private final SocketAddress remoteAddress;
    private final TransactionOffsets transactions;
    private final LongFunction<StoredMessage> messageAt;
    private final java.util.function.Function<String, StoredMessage> messageById;
    private final PendingReplies replies = new PendingReplies();
    private volatile ClientCommandReplies.ConsumerFacts consumerFacts;
    private StreamObserver<TelemetryCommand> telemetry;
    private boolean closed;

    /** @param messageAt the stored message at a CommitLog offset (the check copy a back-check names), or null */
    /** @param messageById the stored message an offset message id names, or null */
    GrpcClientConnection(String clientId, SocketAddress remoteAddress, TransactionOffsets transactions,
                         LongFunction<StoredMessage> messageAt,
                         java.util.function.Function<String, StoredMessage> messageById) {
        this.messageById = messageById;
        this.clientId = clientId;
        this.remoteAddress = remoteAddress;
        this.transactions = transactions;
        this.messageAt = messageAt;
    }

    String clientId() {
        return clientId;
    }

    synchronized void attach(StreamObserver<TelemetryCommand> stream) {
        this.telemetry = stream;
        this.closed = false;
    }

    /** Detaches {@code stream} if it is still the attached one. */
    synchronized void detach(StreamObserver<TelemetryCommand> stream) {
        if (telemetry == stream) {
            telemetry = null;
        }
    }

    /** Writes {@code command} on the attached stream; false when none is attached or the write fails. */
    synchronized boolean push(TelemetryCommand command) {
        if (telemetry == null || closed) {
            return false;
        }
        try {
            telemetry.onNext(command);
            return true;
        } catch (RuntimeException e) {
            log.warn("writing to the Telemetry stream of gRPC client {} failed: {}", clientId, e.toString());
            telemetry = null;
            return false;
        }
    }

    @Override
    public SocketAddress remoteAddress() {
        return remoteAddress;
    }

    @Override
    public String protocol() {
        return "grpc";
    }

    @Override
    public synchronized boolean isActive() {
        return telemetry != null && !closed;
    }

    /** Records what the broker knows of the consumer this connection belongs to (null for a producer). */
    void consumer(ClientCommandReplies.ConsumerFacts facts) {
        this.consumerFacts = facts;
    }

    /** A reply of the client to a command that waits for it; false when nothing waits for its nonce. */
    boolean reply(String nonce, TelemetryCommand reply) {
        return replies.complete(nonce, reply);
    }

    /**
     * GET_CONSUMER_RUNNING_INFO and CONSUME_MESSAGE_DIRECTLY go out as {@code print_thread_stack_trace_command} and
     * {@code verify_message_command} and are answered from the client's reply to their nonce; any other request
     * fails, naming its code.
     */
    @Override
    public CompletableFuture<RemotingCommand> invoke(RemotingCommand request, long timeoutMs) {
        ClientCommandReplies.ConsumerFacts facts = consumerFacts;
        if (facts == null || (request.code() != RequestCode.GET_CONSUMER_RUNNING_INFO
            && request.code() != RequestCode.CONSUME_MESSAGE_DIRECTLY)) {
            return CompletableFuture.failedFuture(new RemotingSendRequestException("request code " + request.code()
                + " has no equivalent for gRPC client " + clientId, null));
        }
        PendingReplies.Pending pending = replies.expect(timeoutMs);
        TelemetryCommand command;
        try {
            command = request.code() == RequestCode.GET_CONSUMER_RUNNING_INFO
                ? TelemetryCommand.newBuilder().setPrintThreadStackTraceCommand(
                    PrintThreadStackTraceCommand.newBuilder().setNonce(pending.nonce())).build()
                : TelemetryCommand.newBuilder().setVerifyMessageCommand(VerifyMessageCommand.newBuilder()
                    .setNonce(pending.nonce()).setMessage(messageToVerify(request))).build();
        } catch (RuntimeException e) {
            replies.fail(pending.nonce(), e);
            return CompletableFuture.failedFuture(new RemotingSendRequestException("the message to consume cannot be"
                + " expressed for gRPC client " + clientId + ": " + e.getMessage(), e));
        }
        if (!push(command)) {
            replies.fail(pending.nonce(), new RemotingConnectException("gRPC client " + clientId
                + " has no Telemetry stream open", null));
        }
        boolean withJstack = "true".equals(request.extFields() == null ? null : request.extFields().get("jstackEnable"));
        return pending.reply().thenApply(reply -> request.code() == RequestCode.GET_CONSUMER_RUNNING_INFO
            ? ClientCommandReplies.runningInfo(reply, withJstack, facts)
            : ClientCommandReplies.consumeMessageDirectly(reply));
    }

    /** The stored message a CONSUME_MESSAGE_DIRECTLY request names by its {@code msgId}, as the 5.x message. */
    private apache.rocketmq.v2.Message messageToVerify(RemotingCommand request) {
        String msgId = request.extFields() == null ? null : request.extFields().get("msgId");
        StoredMessage stored = msgId == null ? null : messageById.apply(msgId);
        if (stored == null) {
            throw new IllegalArgumentException("no message with msgId " + msgId + " in this broker's store");
        }
        return StoredMessageMapping.toMessage(stored, stored.topic(), stored.queueId());
    }

    @Override
    public CompletableFuture<Void> invokeOneway(RemotingCommand request) {
        if (request.code() != RequestCode.CHECK_TRANSACTION_STATE) {
            return CompletableFuture.failedFuture(new RemotingSendRequestException("request code " + request.code()
                + " has no equivalent for gRPC client " + clientId, null));
        }
        TelemetryCommand command;
        try {
            command = recoverCommand(request);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new RemotingSendRequestException("the transaction check cannot be"
                + " expressed for gRPC client " + clientId + ": " + e.getMessage(), e));
        }
        if (!push(command)) {
            return CompletableFuture.failedFuture(new RemotingConnectException("gRPC client " + clientId
                + " has no Telemetry stream open", null));
        }
        return CompletableFuture.completedFuture(null);
    }

    /** The check as the 5.x command; remembers the check copy's offsets under (real topic, transaction id). */
    private TelemetryCommand recoverCommand(RemotingCommand check) {
        long tranStateTableOffset = Long.parseLong(check.extFields().get("tranStateTableOffset"));
        long commitLogOffset = Long.parseLong(check.extFields().get("commitLogOffset"));
        StoredMessage copy = messageAt.apply(commitLogOffset);
        if (copy == null) {
            throw new IllegalArgumentException("no message at commit log offset " + commitLogOffset);
        }
        String transactionId = check.extFields().get("transactionId");
        if (transactionId == null || transactionId.isEmpty()) {
            throw new IllegalArgumentException("the half message has no transaction id (UNIQ_KEY)");
        }
        // the check copy is stored in the half topic; the client is told of the message's own topic and queue
        String topic = copy.property(TransactionalMessages.PROPERTY_REAL_TOPIC);
        String queueId = copy.property(TransactionalMessages.PROPERTY_REAL_QUEUE_ID);
        if (topic == null) {
            throw new IllegalArgumentException("the half message at " + commitLogOffset + " names no real topic");
        }
        transactions.remember(topic, transactionId, new TransactionOffsets.Location(tranStateTableOffset, commitLogOffset));
        return TelemetryCommand.newBuilder().setRecoverOrphanedTransactionCommand(
            RecoverOrphanedTransactionCommand.newBuilder().setTransactionId(transactionId)
                .setMessage(StoredMessageMapping.toMessage(copy, topic, queueId == null ? 0 : Integer.parseInt(queueId))))
            .build();
    }

    @Override
    public synchronized void close() {
        closed = true;
        replies.failAll(new RemotingConnectException("gRPC client " + clientId + " ended", null));
        if (telemetry != null) {
            try {
                telemetry.onCompleted();
            } catch (RuntimeException ignored) {
                // the stream is gone already
            }
            telemetry = null;
        }
    }

    @Override
    public String toString() {
        return "gRPC client " + clientId + " (" + remoteAddress + ")";
    }
}
