package io.basalt.broker.grpc;

import apache.rocketmq.v2.AckMessageEntry;
import apache.rocketmq.v2.AckMessageRequest;
import apache.rocketmq.v2.AckMessageResponse;
import apache.rocketmq.v2.AckMessageResultEntry;
import apache.rocketmq.v2.ChangeInvisibleDurationRequest;
import apache.rocketmq.v2.ChangeInvisibleDurationResponse;
import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.FilterType;
import apache.rocketmq.v2.ForwardMessageToDeadLetterQueueRequest;
import apache.rocketmq.v2.ForwardMessageToDeadLetterQueueResponse;
import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.ReceiveMessageRequest;
import apache.rocketmq.v2.ReceiveMessageResponse;
import apache.rocketmq.v2.Status;
import io.basalt.broker.pop.ChangeInvisibleResult;
import io.basalt.broker.pop.PopHandle;
import io.basalt.broker.pop.PopOutcome;
import io.basalt.broker.pop.PopRequest;
import io.basalt.broker.pop.PopResult;
import io.basalt.broker.pop.PopService;
import io.basalt.broker.subscription.SubscriptionGroupConfig;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.StoredMessage;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * POP consumption over gRPC (protocol notes §2.6.5–§2.6.8): ReceiveMessage pops this broker's queues through the
 * {@link PopService}, AckMessage / ChangeInvisibleDuration act on the receipt handles it gave, and
 * ForwardMessageToDeadLetterQueue sends a message to {@code %DLQ%<group>} through the broker's send-back processor,
 * then acks it. A FIFO group (consumeMessageOrderly) receives by order POP, its delivery attempts counted by the
 * order state.
 */
final class GrpcConsumption {
    private static final Logger log = LoggerFactory.getLogger(GrpcConsumption.class);
    /** RocketMQ proxy's grpcClientConsumerMinLongPollingTimeoutMillis / …Max…. */
    static final long MIN_POLL_MS = 5_000;
    static final long MAX_POLL_MS = 20_000;
    /** RocketMQ proxy's minInvisibleTimeMillsForRecv and maxInvisibleTimeMills. */
    static final long MIN_INVISIBLE_MS = 10_000;
    static final long MAX_INVISIBLE_MS = 12 * 3_600_000L;
    /** Time kept between the end of the pop's wait and the call's deadline, so the answer arrives before it. */
    static final long DEADLINE_MARGIN_MS = 500;
    /** Invisible time given to a message the stream could not carry: it is re-delivered soon. */
    static final long UNDELIVERED_INVISIBLE_MS = 1_000;

    private final PopService pop;
    private final Function<String, Optional<SubscriptionGroupConfig>> groups;
    private final RequestProcessor sendBack;
    private final LongFunction<StoredMessage> messageAt;
    private final LongSupplier clock;
    private final long autoRenewInvisibleMs;
    private final AutoRenewals renewals;
    private final GrpcCounters counters;
    private final GrpcServer.Delivered delivered;
    private final WaitingReceives waiting = new WaitingReceives();

    GrpcConsumption(PopService pop, Function<String, Optional<SubscriptionGroupConfig>> groups,
                    RequestProcessor sendBack, LongFunction<StoredMessage> messageAt, LongSupplier clock, long autoRenewInvisibleMs, AutoRenewals renewals,
                    GrpcCounters counters, GrpcServer.Delivered delivered) {
        this.delivered = delivered;
        this.pop = pop;
        this.groups = groups;
        this.sendBack = sendBack;
        this.messageAt = messageAt;
        this.clock = clock;
        this.autoRenewInvisibleMs = autoRenewInvisibleMs;
        this.renewals = renewals;
        this.counters = counters;
    }

    // ---- ReceiveMessage ------------------------------------------------------------------------------------------

    /**
     * Answers on {@code out}: one status, then the messages, then the delivery timestamp.
     *
     * @param remainingMs time left before the call's deadline, or -1 when it has none
     */
    void receive(ReceiveMessageRequest request, String clientId, RequestContext context, long remainingMs,
                 StreamObserver<ReceiveMessageResponse> out) {
        WaitingReceives.Call call = new WaitingReceives.Call(out);
        String group = request.getGroup().getName();
        String topic = request.getMessageQueue().getTopic().getName();
        // an unknown group is auto-created (or refused) by the pop itself; until then it has the defaults
        SubscriptionGroupConfig groupConfig = groups.apply(group).orElse(SubscriptionGroupConfig.defaults(group));
        // a FIFO group receives by order POP: a queue stays blocked while its last batch is un-acked and invisible
        boolean fifo = groupConfig.consumeMessageOrderly();
        long pollMs = ReceiveRules.pollingTime(request, remainingMs);
        if (pollMs < 0) {
            finish(call, GrpcCodes.status(Code.ILLEGAL_POLLING_TIME, "the call's deadline leaves " + remainingMs
                + " ms, less than the minimum polling time of " + MIN_POLL_MS + " ms"), List.of());
            return;
        }
        boolean autoRenew = request.getAutoRenew();
        long invisibleMs = autoRenew ? autoRenewInvisibleMs : ReceiveRules.invisibleTime(request);
        if (invisibleMs < 0) {
            finish(call, GrpcCodes.status(Code.ILLEGAL_INVISIBLE_TIME, "invisible_duration must be between "
                + MIN_INVISIBLE_MS + " ms and " + MAX_INVISIBLE_MS + " ms (or set auto_renew)"), List.of());
            return;
        }
        boolean sql = request.getFilterExpression().getType() == FilterType.SQL;
        String expression = request.getFilterExpression().getExpression();
        PopRequest popRequest = new PopRequest(group, topic, -1,
            Math.max(1, Math.min(request.getBatchSize(), PopRequest.MAX_MSG_NUMS)), invisibleMs, pollMs,
            PopRequest.INIT_MODE_MAX, sql ? "SQL92" : "TAG", expression, fifo,
            fifo && request.hasAttemptId() ? request.getAttemptId() : null);
        int maxAttempts = groupConfig.retryMaxTimes() + 1;
        waiting.add(clientId, call);
        CompletableFuture<PopResult> popping = pop.pop(popRequest);
        call.popping(popping);
        popping.whenComplete((result, failure) -> {
            waiting.remove(clientId, call);
            if (failure instanceof java.util.concurrent.CancellationException) {
                return; // the client terminated and was answered
            }
            if (failure != null) {
                log.warn("gRPC receive of {} for {} failed", topic, group, failure);
                finish(call, GrpcCodes.status(Code.INTERNAL_SERVER_ERROR, "receive failed: " + failure), List.of());
                return;
            }
            Status status = ReceiveRules.statusOf(result.outcome());
            if (status.getCode() != Code.OK) {
                finish(call, status, List.of());
                return;
            }
            List<Delivery> deliveries = deliveries(result, group, topic, sql ? null : expression, maxAttempts, context);
            if (deliveries.isEmpty()) {
                finish(call, GrpcCodes.status(Code.MESSAGE_NOT_FOUND, "no match message"), List.of());
                return;
            }
            if (autoRenew) {
                for (Delivery d : deliveries) {
                    renewals.track(clientId, group, topic, d.message().getSystemProperties().getMessageId(), d.handle());
                }
            }
            List<Delivery> undelivered = finish(call, GrpcCodes.OK, deliveries);
            int sent = deliveries.size() - undelivered.size();
            if (sent > 0) {
                long bytes = deliveries.stream().filter(d -> !undelivered.contains(d))
                    .mapToLong(d -> d.message().getBody().size()).sum();
                delivered.messagesOut(topic, group, sent, bytes);
            }
            for (Delivery d : undelivered) {
                renewals.forget(clientId, d.message().getSystemProperties().getMessageId());
                pop.changeInvisibleTime(group, d.handle().realTopic(topic, group), d.handle().queueId(),
                    d.handle().offset(), d.handle().extraInfo(), UNDELIVERED_INVISIBLE_MS);
            }
        });
    }

    record Delivery(Message message, PopHandle handle) { }

    /** The popped messages to deliver, after RocketMQ's post-filter (tag not subscribed, attempts exhausted). */
    private List<Delivery> deliveries(PopResult result, String group, String topic, String tagExpression,
                                      int maxAttempts, RequestContext context) {
        List<Delivery> deliveries = new ArrayList<>();
        for (int i = 0; i < result.messages().size(); i++) {
            PopHandle handle = result.handles().get(i);
            // the record as stored (a retried message: its retry-topic record, with its reconsume count)
            StoredMessage stored = messageAt.apply(handle.commitLogOffset());
            if (stored == null) {
                continue; // gone from the CommitLog since the pop: nothing to deliver, its checkpoint lapses
            }
            String tag = stored.property(io.basalt.store.MessageProperties.TAGS);
            if (!ReceiveRules.tagMatches(tagExpression, tag)) {
                pop.ack(group, handle.realTopic(topic, group), handle.queueId(), handle.offset(), handle.extraInfo());
                continue;
            }
            Message message = ReceiveRules.toMessage(stored, topic, handle);
            int reconsumeTimes = stored.reconsumeTimes();
            if (handle.isOrder()) {
                // an order message is re-delivered in place: its count is the order state's, not the record's
                reconsumeTimes = OrderCounts.parse(result.orderCountInfo()).times(handle.queueId(), handle.offset());
                message = message.toBuilder().setSystemProperties(message.getSystemProperties().toBuilder()
                    .setDeliveryAttempt(reconsumeTimes + 1)).build();
            }
            if (reconsumeTimes >= maxAttempts) {
                forward(group, topic, handle, message.getSystemProperties().getMessageId(), context);
                continue;
            }
            deliveries.add(new Delivery(message, handle));
        }
        return deliveries;
    }

    /**
     * The client said it terminates (NotifyClientTermination): its receives still waiting for messages are answered
     * now, with none, and their pops stop waiting. A pop that was taking messages at that moment keeps them invisible
     * for their invisible time, as for a client that went away mid-call; they are delivered again after it.
     */
    void clientTerminated(String clientId) {
        for (WaitingReceives.Call call : waiting.removeAll(clientId)) {
            finish(call, GrpcCodes.status(Code.MESSAGE_NOT_FOUND, "no message: the client terminated while this"
                + " receive waited"), List.of());
            call.cancelPop();
        }
    }

    /**
     * Writes the status, the deliveries and the delivery timestamp, then completes, unless the call was answered
     * already. Returns the deliveries the stream did not carry (answered already, cancelled, or the write failed).
     */
    private List<Delivery> finish(WaitingReceives.Call call, Status status, List<Delivery> deliveries) {
        if (!call.claim()) {
            return new ArrayList<>(deliveries);
        }
        StreamObserver<ReceiveMessageResponse> out = call.out;
        counters.answered("ReceiveMessage", status.getCode());
        List<Delivery> undelivered = new ArrayList<>();
        try {
            out.onNext(ReceiveMessageResponse.newBuilder().setStatus(status).build());
        } catch (RuntimeException e) {
            return new ArrayList<>(deliveries);
        }
        for (Delivery d : deliveries) {
            if (!undelivered.isEmpty() || cancelled(out)) {
                undelivered.add(d);
                continue;
            }
            try {
                out.onNext(ReceiveMessageResponse.newBuilder().setMessage(d.message()).build());
            } catch (RuntimeException e) {
                log.debug("a received message could not be written to the stream: {}", e.toString());
                undelivered.add(d);
            }
        }
        try {
            out.onNext(ReceiveMessageResponse.newBuilder()
                .setDeliveryTimestamp(StoredMessageMapping.timestamp(clock.getAsLong())).build());
            out.onCompleted();
        } catch (RuntimeException e) {
            log.debug("completing a receive stream failed: {}", e.toString());
        }
        return undelivered;
    }

    private static boolean cancelled(StreamObserver<?> out) {
        return out instanceof ServerCallStreamObserver<?> s && s.isCancelled();
    }

    // ---- AckMessage ----------------------------------------------------------------------------------------------

    AckMessageResponse ack(AckMessageRequest request, String clientId) {
        String group = request.getGroup().getName();
        String topic = request.getTopic().getName();
        List<Status> statuses = new ArrayList<>();
        AckMessageResponse.Builder response = AckMessageResponse.newBuilder();
        for (AckMessageEntry entry : request.getEntriesList()) {
            String handleText = renewals.newest(clientId, entry.getMessageId(), entry.getReceiptHandle());
            Status status = ackOne(group, topic, handleText);
            if (status.getCode() == Code.OK) {
                renewals.forget(clientId, entry.getMessageId());
            }
            statuses.add(status);
            response.addEntries(AckMessageResultEntry.newBuilder().setMessageId(entry.getMessageId())
                .setReceiptHandle(entry.getReceiptHandle()).setStatus(status));
        }
        return response.setStatus(GrpcCodes.combined(statuses)).build();
    }

    private Status ackOne(String group, String topic, String handleText) {
        PopHandle handle;
        try {
            handle = PopHandle.decode(handleText);
        } catch (IllegalArgumentException e) {
            return GrpcCodes.status(Code.INVALID_RECEIPT_HANDLE, e.getMessage());
        }
        if (handle.expired(clock.getAsLong())) {
            return GrpcCodes.status(Code.INVALID_RECEIPT_HANDLE, "receipt handle is expired");
        }
        PopOutcome outcome = pop.ack(group, handle.realTopic(topic, group), handle.queueId(), handle.offset(),
            handle.extraInfo());
        return outcome.isSuccess() ? GrpcCodes.OK : GrpcCodes.status(Code.INTERNAL_SERVER_ERROR, "ack failed: "
            + outcome.remark() + " (broker code " + outcome.code() + ")");
    }

    // ---- ChangeInvisibleDuration ---------------------------------------------------------------------------------

    ChangeInvisibleDurationResponse changeInvisibleDuration(ChangeInvisibleDurationRequest request, String clientId) {
        ChangeInvisibleDurationResponse.Builder response = ChangeInvisibleDurationResponse.newBuilder();
        long invisibleMs = ReceiveRules.millis(request.getInvisibleDuration());
        if (invisibleMs > MAX_INVISIBLE_MS || invisibleMs < 0) {
            return response.setStatus(GrpcCodes.status(Code.ILLEGAL_INVISIBLE_TIME, "invisible_duration must be"
                + " at most " + MAX_INVISIBLE_MS + " ms: " + invisibleMs)).build();
        }
        String group = request.getGroup().getName();
        String topic = request.getTopic().getName();
        // the client takes the message back from auto-renew: this handle is the one it now manages
        String handleText = renewals.newest(clientId, request.getMessageId(), request.getReceiptHandle());
        renewals.forget(clientId, request.getMessageId());
        PopHandle handle;
        try {
            handle = PopHandle.decode(handleText);
        } catch (IllegalArgumentException e) {
            return response.setStatus(GrpcCodes.status(Code.INVALID_RECEIPT_HANDLE, e.getMessage())).build();
        }
        if (handle.expired(clock.getAsLong())) {
            return response.setStatus(GrpcCodes.status(Code.INVALID_RECEIPT_HANDLE, "receipt handle is expired")).build();
        }
        ChangeInvisibleResult result = pop.changeInvisibleTime(group, handle.realTopic(topic, group), handle.queueId(),
            handle.offset(), handle.extraInfo(), Math.max(1, invisibleMs));
        if (!result.outcome().isSuccess()) {
            return response.setStatus(GrpcCodes.status(Code.INTERNAL_SERVER_ERROR, "change invisible duration failed: "
                + result.outcome().remark() + " (broker code " + result.outcome().code() + ")")).build();
        }
        // the new handle names the checkpoint just written (its field 0 is the message's own offset), so a later
        // ack of a message that was not the first of its batch matches it
        return response.setStatus(GrpcCodes.OK).setReceiptHandle(result.newHandle().encode()).build();
    }

    // ---- ForwardMessageToDeadLetterQueue -------------------------------------------------------------------------

    CompletableFuture<ForwardMessageToDeadLetterQueueResponse> forwardToDeadLetterQueue(
        ForwardMessageToDeadLetterQueueRequest request, String clientId, RequestContext context) {
        String group = request.getGroup().getName();
        String topic = request.getTopic().getName();
        String handleText = renewals.newest(clientId, request.getMessageId(), request.getReceiptHandle());
        PopHandle handle;
        try {
            handle = PopHandle.decode(handleText);
        } catch (IllegalArgumentException e) {
            return done(GrpcCodes.status(Code.INVALID_RECEIPT_HANDLE, e.getMessage()));
        }
        if (handle.commitLogOffset() < 0) {
            return done(GrpcCodes.status(Code.INVALID_RECEIPT_HANDLE, "commit log offset is empty"));
        }
        return forward(group, topic, handle, request.getMessageId(), context).thenApply(status -> {
            if (status.getCode() == Code.OK) {
                renewals.forget(clientId, request.getMessageId());
            }
            return ForwardMessageToDeadLetterQueueResponse.newBuilder().setStatus(status).build();
        });
    }

    private static CompletableFuture<ForwardMessageToDeadLetterQueueResponse> done(Status status) {
        return CompletableFuture.completedFuture(ForwardMessageToDeadLetterQueueResponse.newBuilder().setStatus(status)
            .build());
    }

    /** Sends the message to {@code %DLQ%<group>} (CONSUMER_SEND_MSG_BACK with delay level -1), then acks it. */
    private CompletableFuture<Status> forward(String group, String topic, PopHandle handle, String messageId,
                                              RequestContext context) {
        RemotingCommand sendBackRequest = RemotingCommand.request(RequestCode.CONSUMER_SEND_MSG_BACK);
        sendBackRequest.putExtField("offset", Long.toString(handle.commitLogOffset()));
        sendBackRequest.putExtField("group", group);
        sendBackRequest.putExtField("delayLevel", "-1");
        sendBackRequest.putExtField("originMsgId", messageId);
        sendBackRequest.putExtField("originTopic", handle.realTopic(topic, group));
        sendBackRequest.putExtField("unitMode", "false");
        sendBackRequest.putExtField("maxReconsumeTimes", "0");
        CompletableFuture<RemotingCommand> sent;
        try {
            sent = sendBack.processRequest(context, sendBackRequest);
        } catch (Exception e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.handle((r, failure) -> {
            if (failure != null || r == null) {
                return GrpcCodes.status(Code.INTERNAL_SERVER_ERROR, "forwarding to the dead letter queue failed: "
                    + failure);
            }
            if (r.code() != ResponseCode.SUCCESS) {
                return GrpcCodes.fromRemoting(r.code(), r.remark());
            }
            PopOutcome acked = pop.ack(group, handle.realTopic(topic, group), handle.queueId(), handle.offset(),
                handle.extraInfo());
            return acked.isSuccess() ? GrpcCodes.OK : GrpcCodes.status(Code.INTERNAL_SERVER_ERROR, "the message is in"
                + " the dead letter queue but its ack failed (it will be delivered again): " + acked.remark());
        });
    }
}
