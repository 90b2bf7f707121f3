package io.basalt.broker.grpc;

import apache.rocketmq.v2.AckMessageRequest;
import apache.rocketmq.v2.AckMessageResponse;
import apache.rocketmq.v2.ChangeInvisibleDurationRequest;
import apache.rocketmq.v2.ChangeInvisibleDurationResponse;
import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.EndTransactionRequest;
import apache.rocketmq.v2.EndTransactionResponse;
import apache.rocketmq.v2.ForwardMessageToDeadLetterQueueRequest;
import apache.rocketmq.v2.ForwardMessageToDeadLetterQueueResponse;
import apache.rocketmq.v2.HeartbeatRequest;
import apache.rocketmq.v2.HeartbeatResponse;
import apache.rocketmq.v2.MessagingServiceGrpc;
import apache.rocketmq.v2.NotifyClientTerminationRequest;
import apache.rocketmq.v2.NotifyClientTerminationResponse;
import apache.rocketmq.v2.QueryAssignmentRequest;
import apache.rocketmq.v2.QueryAssignmentResponse;
import apache.rocketmq.v2.QueryRouteRequest;
import apache.rocketmq.v2.QueryRouteResponse;
import apache.rocketmq.v2.ReceiveMessageRequest;
import apache.rocketmq.v2.ReceiveMessageResponse;
import apache.rocketmq.v2.SendMessageRequest;
import apache.rocketmq.v2.SendMessageResponse;
import apache.rocketmq.v2.Status;
import apache.rocketmq.v2.TelemetryCommand;
import io.basalt.remoting.processor.RequestContext;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code apache.rocketmq.v2.MessagingService} as this broker serves it. Every call first needs the client's id
 * ({@code x-mq-client-id}, else CLIENT_ID_REQUIRED); results and errors travel in the response's application status.
 * Consumption (ReceiveMessage, AckMessage, ChangeInvisibleDuration, ForwardMessageToDeadLetterQueue) is POP through
 * {@link GrpcConsumption}. The offset RPCs RocketMQ does not implement either keep the gRPC UNIMPLEMENTED of the generated base class.
 */
final class BrokerMessagingService extends MessagingServiceGrpc.MessagingServiceImplBase {
    private static final Logger log = LoggerFactory.getLogger(BrokerMessagingService.class);
    private final RouteAnswers routes;
    private final GrpcClients clients;
    private final SettingsReplies settings;
    private final GrpcSends sends;
    private final GrpcTransactions transactions;
    private final GrpcConsumption consumption;
    private final GrpcCounters counters;
    private final java.util.function.BooleanSupplier overloaded;

    /** @param overloaded whether the endpoint's request queue is past its flow limit (calls answer TOO_MANY_REQUESTS) */
    BrokerMessagingService(RouteAnswers routes, GrpcClients clients, SettingsReplies settings, GrpcSends sends,
                           GrpcTransactions transactions, GrpcConsumption consumption, GrpcCounters counters,
                           java.util.function.BooleanSupplier overloaded) {
        this.consumption = consumption;
        this.routes = routes;
        this.clients = clients;
        this.settings = settings;
        this.sends = sends;
        this.transactions = transactions;
        this.counters = counters;
        this.overloaded = overloaded;
    }

    @Override
    public void queryRoute(QueryRouteRequest request, StreamObserver<QueryRouteResponse> out) {
        unary("QueryRoute", out, s -> QueryRouteResponse.newBuilder().setStatus(s).build(), QueryRouteResponse::getStatus,
            m -> CompletableFuture.completedFuture(routes.queryRoute(request.getTopic())));
    }

    @Override
    public void heartbeat(HeartbeatRequest request, StreamObserver<HeartbeatResponse> out) {
        unary("Heartbeat", out, s -> HeartbeatResponse.newBuilder().setStatus(s).build(), HeartbeatResponse::getStatus,
            m -> CompletableFuture.completedFuture(HeartbeatResponse.newBuilder().setStatus(clients.heartbeat(m.clientId())
                ? GrpcCodes.OK : GrpcCodes.status(Code.UNRECOGNIZED_CLIENT_TYPE, "cannot find client settings of "
                + m.clientId() + ": the client's Telemetry stream has not sent its settings yet")).build()));
    }

    @Override
    public void sendMessage(SendMessageRequest request, StreamObserver<SendMessageResponse> out) {
        unary("SendMessage", out, s -> SendMessageResponse.newBuilder().setStatus(s).build(),
            SendMessageResponse::getStatus,
            m -> sends.send(request.getMessagesList(), context(m), m.remoteHost()));
    }

    @Override
    public void queryAssignment(QueryAssignmentRequest request, StreamObserver<QueryAssignmentResponse> out) {
        unary("QueryAssignment", out, s -> QueryAssignmentResponse.newBuilder().setStatus(s).build(),
            QueryAssignmentResponse::getStatus,
            m -> CompletableFuture.completedFuture(routes.queryAssignment(request.getTopic(), request.getGroup())));
    }

    @Override
    public void receiveMessage(ReceiveMessageRequest request, StreamObserver<ReceiveMessageResponse> out) {
        ClientMetadata metadata = ClientMetadata.current();
        if (!metadata.hasClientId()) {
            counters.answered("ReceiveMessage", Code.CLIENT_ID_REQUIRED);
            out.onNext(ReceiveMessageResponse.newBuilder().setStatus(clientIdRequired()).build());
            out.onCompleted();
            return;
        }
        Deadline deadline = Context.current().getDeadline();
        long remainingMs = deadline == null ? -1 : Math.max(0, deadline.timeRemaining(TimeUnit.MILLISECONDS));
        try {
            consumption.receive(request, metadata.clientId(), context(metadata), remainingMs, out);
        } catch (RuntimeException e) {
            log.warn("gRPC ReceiveMessage from {} failed", metadata.clientId(), e);
            counters.answered("ReceiveMessage", Code.INTERNAL_SERVER_ERROR);
            out.onNext(ReceiveMessageResponse.newBuilder().setStatus(GrpcCodes.status(Code.INTERNAL_SERVER_ERROR,
                "ReceiveMessage failed: " + e)).build());
            out.onCompleted();
        }
    }

    @Override
    public void ackMessage(AckMessageRequest request, StreamObserver<AckMessageResponse> out) {
        unary("AckMessage", out, s -> AckMessageResponse.newBuilder().setStatus(s).build(), AckMessageResponse::getStatus,
            m -> CompletableFuture.completedFuture(consumption.ack(request, m.clientId())));
    }

    @Override
    public void forwardMessageToDeadLetterQueue(ForwardMessageToDeadLetterQueueRequest request,
        StreamObserver<ForwardMessageToDeadLetterQueueResponse> out) {
        unary("ForwardMessageToDeadLetterQueue", out,
            s -> ForwardMessageToDeadLetterQueueResponse.newBuilder().setStatus(s).build(),
            ForwardMessageToDeadLetterQueueResponse::getStatus,
            m -> consumption.forwardToDeadLetterQueue(request, m.clientId(), context(m)));
    }

    @Override
    public void changeInvisibleDuration(ChangeInvisibleDurationRequest request,
        StreamObserver<ChangeInvisibleDurationResponse> out) {
        unary("ChangeInvisibleDuration", out, s -> ChangeInvisibleDurationResponse.newBuilder().setStatus(s).build(),
            ChangeInvisibleDurationResponse::getStatus,
            m -> CompletableFuture.completedFuture(consumption.changeInvisibleDuration(request, m.clientId())));
    }

    @Override
    public void endTransaction(EndTransactionRequest request, StreamObserver<EndTransactionResponse> out) {
        unary("EndTransaction", out, s -> EndTransactionResponse.newBuilder().setStatus(s).build(),
            EndTransactionResponse::getStatus, m -> transactions.end(request, context(m)));
    }

    @Override
    public void notifyClientTermination(NotifyClientTerminationRequest request,
        StreamObserver<NotifyClientTerminationResponse> out) {
        unary("NotifyClientTermination", out, s -> NotifyClientTerminationResponse.newBuilder().setStatus(s).build(),
            NotifyClientTerminationResponse::getStatus,
            m -> {
                // its long-polling receives end first: the SDK waits for them before it closes its channel
                consumption.clientTerminated(m.clientId());
                return CompletableFuture.completedFuture(NotifyClientTerminationResponse.newBuilder()
                    .setStatus(clients.terminate(m.clientId()) ? GrpcCodes.OK : GrpcCodes.status(
                        Code.UNRECOGNIZED_CLIENT_TYPE, "cannot find client settings of " + m.clientId())).build());
            });
    }

    @Override
    public StreamObserver<TelemetryCommand> telemetry(StreamObserver<TelemetryCommand> out) {
        ClientMetadata metadata = ClientMetadata.current();
        if (!metadata.hasClientId()) {
            counters.answered("Telemetry", Code.CLIENT_ID_REQUIRED);
            out.onNext(TelemetryCommand.newBuilder().setStatus(clientIdRequired()).build());
            out.onCompleted();
            return new StreamObserver<>() {
                @Override
                public void onNext(TelemetryCommand value) {
                }

                @Override
                public void onError(Throwable t) {
                }

                @Override
                public void onCompleted() {
                }
            };
        }
        return new TelemetrySession(metadata, out, clients, settings, counters);
    }

    private RequestContext context(ClientMetadata m) {
        return new RequestContext(clients.connection(m.clientId(), m.remoteAddress()), m.remoteAddress(), null,
            System.nanoTime());
    }

    /**
     * Runs a unary call: CLIENT_ID_REQUIRED without a client id, TOO_MANY_REQUESTS past the flow limit, else the
     * handler; a handler failure is answered
     * INTERNAL_SERVER_ERROR in the application status, never left without an answer.
     */
    private <R> void unary(String rpc, StreamObserver<R> out, Function<Status, R> withStatus, Function<R, Status> statusOf,
        Function<ClientMetadata, CompletableFuture<R>> handler) {
        ClientMetadata metadata = ClientMetadata.current();
        CompletableFuture<R> answer;
        if (!metadata.hasClientId()) {
            answer = CompletableFuture.completedFuture(withStatus.apply(clientIdRequired()));
        } else if (overloaded.getAsBoolean()) {
            // the one code that makes the SDKs back off before they retry
            answer = CompletableFuture.completedFuture(withStatus.apply(GrpcCodes.status(Code.TOO_MANY_REQUESTS,
                "flow limit: too many gRPC requests are waiting on this broker; retry after a backoff")));
        } else {
            try {
                answer = handler.apply(metadata);
            } catch (RuntimeException e) {
                answer = CompletableFuture.failedFuture(e);
            }
        }
        answer.whenComplete((response, failure) -> {
            R r = response;
            if (failure != null || r == null) {
                log.warn("gRPC {} from {} failed", rpc, metadata.clientId(), failure);
                r = withStatus.apply(GrpcCodes.status(Code.INTERNAL_SERVER_ERROR, rpc + " failed: " + failure));
            }
            counters.answered(rpc, statusOf.apply(r).getCode());
            try {
                out.onNext(r);
                out.onCompleted();
            } catch (RuntimeException e) {
                log.debug("answering gRPC {} of {} failed: {}", rpc, metadata.clientId(), e.toString());
            }
        });
    }

    private static Status clientIdRequired() {
        return GrpcCodes.status(Code.CLIENT_ID_REQUIRED, "the x-mq-client-id header is required");
    }
}
