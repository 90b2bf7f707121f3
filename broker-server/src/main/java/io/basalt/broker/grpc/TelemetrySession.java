package io.basalt.broker.grpc;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.Settings;
import apache.rocketmq.v2.SubscriptionEntry;
import apache.rocketmq.v2.TelemetryCommand;
import io.basalt.broker.topic.TopicValidator;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's Telemetry stream (§2.5). The client's {@code settings} are validated (a bad topic or group, or
 * settings with neither publishing nor subscription, fail the stream with INVALID_ARGUMENT, as RocketMQ's proxy
 * does), recorded and answered with the server's settings; the stream is then the client's connection for commands
 * the broker pushes (transaction back-checks, thread stack and message verification requests, whose replies are
 * handed to the connection by nonce).
 */
final class TelemetrySession implements StreamObserver<TelemetryCommand> {
    private static final Logger log = LoggerFactory.getLogger(TelemetrySession.class);

    private final ClientMetadata metadata;
    private final StreamObserver<TelemetryCommand> out;
    private final GrpcClients clients;
    private final SettingsReplies replies;
    private final GrpcCounters counters;
    private volatile GrpcClientConnection connection;

    TelemetrySession(ClientMetadata metadata, StreamObserver<TelemetryCommand> out, GrpcClients clients,
                     SettingsReplies replies, GrpcCounters counters) {
        this.metadata = metadata;
        this.out = out;
        this.clients = clients;
        this.replies = replies;
        this.counters = counters;
    }

    @Override
    public void onNext(TelemetryCommand command) {
        if (command.hasThreadStackTrace() || command.hasVerifyMessageResult()) {
            String nonce = command.hasThreadStackTrace() ? command.getThreadStackTrace().getNonce()
                : command.getVerifyMessageResult().getNonce();
            GrpcClientConnection c = connection;
            if (c == null || !c.reply(nonce, command)) {
                log.debug("gRPC client {} replied to nonce {}, which nothing waits for (late or unknown)",
                    metadata.clientId(), nonce);
            }
            return;
        }
        if (!command.hasSettings()) {
            log.debug("gRPC client {} sent telemetry {}; nothing to do", metadata.clientId(), command.getCommandCase());
            return;
        }
        Settings settings = command.getSettings();
        String invalid = invalid(settings);
        if (invalid != null) {
            counters.answered("Telemetry", Code.BAD_REQUEST);
            log.warn("gRPC client {} sent settings the broker refuses: {}", metadata.clientId(), invalid);
            out.onError(Status.INVALID_ARGUMENT.withDescription(invalid).asRuntimeException());
            return;
        }
        GrpcClients.Session session = clients.settle(metadata, settings);
        GrpcClientConnection c = session.connection();
        TelemetryCommand reply = TelemetryCommand.newBuilder().setStatus(GrpcCodes.OK)
            .setSettings(replies.reply(settings)).build();
        if (connection == null) {
            connection = c;
            // the reply goes through the connection, which serializes it with pushed commands
            c.attach(out);
            log.info("gRPC client {} ({} {} {}) opened its Telemetry stream from {}", metadata.clientId(),
                settings.getClientType(), metadata.languageName(), metadata.version(), metadata.remoteHost());
        }
        counters.answered("Telemetry", Code.OK);
        if (!c.push(reply)) {
            log.warn("answering the settings of gRPC client {} failed", metadata.clientId());
        }
    }

    @Override
    public void onError(Throwable t) {
        detach();
        log.debug("Telemetry stream of gRPC client {} failed: {}", metadata.clientId(), t.toString());
    }

    @Override
    public void onCompleted() {
        detach();
        try {
            out.onCompleted();
        } catch (RuntimeException ignored) {
            // already closed
        }
    }

    private void detach() {
        clients.streamClosed(metadata.clientId());
        GrpcClientConnection c = connection;
        if (c != null) {
            c.detach(out);
        }
    }

    /** Why the settings are refused, or null. */
    static String invalid(Settings settings) {
        if (settings.hasPublishing()) {
            for (Resource topic : settings.getPublishing().getTopicsList()) {
                String reason = TopicValidator.invalidReason(topic.getName());
                if (reason != null) {
                    return "illegal topic in the publishing settings: " + reason;
                }
            }
            return null;
        }
        if (settings.hasSubscription()) {
            String reason = TopicValidator.invalidName("group", settings.getSubscription().getGroup().getName(), 255);
            if (reason != null) {
                return "illegal consumer group in the subscription settings: " + reason;
            }
            for (SubscriptionEntry entry : settings.getSubscription().getSubscriptionsList()) {
                reason = TopicValidator.invalidReason(entry.getTopic().getName());
                if (reason != null) {
                    return "illegal topic in the subscription settings: " + reason;
                }
            }
            return null;
        }
        return "there is no publishing or subscription data in settings";
    }
}
