package io.basalt.broker.grpc;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.MessageType;
import apache.rocketmq.v2.SendMessageResponse;
import apache.rocketmq.v2.SendResultEntry;
import apache.rocketmq.v2.Status;
import io.basalt.broker.processor.SendMessageProcessor;
import io.basalt.broker.processor.SendOutcome;
import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SendMessage: the request's checks, then each message's send header handed to the broker's own send processor (so
 * timers, half messages, flush and replication behave exactly as for remoting producers) and its typed outcome read
 * back, one result entry per message. The half message's offsets are remembered for the EndTransaction that follows.
 */
final class GrpcSends {
    private static final Logger log = LoggerFactory.getLogger(GrpcSends.class);

    private final Function<String, TopicConfig> topics;
    private final IntUnaryOperator routePerm;
    private final int maxBodySize;
    private final SendMessageProcessor sendProcessor;
    private final TransactionOffsets transactions;
    private final QueueChoice queues = new QueueChoice();

    GrpcSends(Function<String, TopicConfig> topics, IntUnaryOperator routePerm, int maxBodySize,
              SendMessageProcessor sendProcessor, TransactionOffsets transactions) {
        this.topics = topics;
        this.routePerm = routePerm;
        this.maxBodySize = maxBodySize;
        this.sendProcessor = sendProcessor;
        this.transactions = transactions;
    }

    CompletableFuture<SendMessageResponse> send(List<Message> messages, RequestContext context, String bornHost) {
        Status refused = SendMessageChecks.checkRequest(messages);
        String topicName = refused == null ? messages.get(0).getTopic().getName() : null;
        TopicConfig topic = topicName == null ? null : topics.apply(topicName);
        if (refused == null && topic == null) {
            refused = GrpcCodes.status(Code.TOPIC_NOT_FOUND, "topic " + topicName + " does not exist on this broker");
        }
        if (refused == null && ((routePerm.applyAsInt(topic.perm()) & Perm.WRITE) == 0 || topic.writeQueueNums() <= 0)) {
            refused = GrpcCodes.status(Code.FORBIDDEN, "no writable queue of topic " + topicName + " on this broker");
        }
        if (refused != null) {
            return CompletableFuture.completedFuture(SendMessageResponse.newBuilder().setStatus(refused).build());
        }
        long now = System.currentTimeMillis();
        List<CompletableFuture<SendResultEntry>> entries = new ArrayList<>(messages.size());
        for (Message m : messages) {
            Status invalid = SendMessageChecks.checkMessage(m, topic, maxBodySize, now);
            if (invalid != null) {
                entries.add(CompletableFuture.completedFuture(entry(m, invalid)));
                continue;
            }
            String group = m.getSystemProperties().hasMessageGroup() && messages.size() == 1
                ? m.getSystemProperties().getMessageGroup() : null;
            int queueId = queues.choose(group, topic.writeQueueNums());
            entries.add(sendOne(m, queueId, context, bornHost, now));
        }
        return CompletableFuture.allOf(entries.toArray(CompletableFuture[]::new)).thenApply(v -> {
            SendMessageResponse.Builder response = SendMessageResponse.newBuilder();
            List<Status> statuses = new ArrayList<>();
            for (CompletableFuture<SendResultEntry> e : entries) {
                SendResultEntry entry = e.join();
                response.addEntries(entry);
                statuses.add(entry.getStatus());
            }
            return response.setStatus(GrpcCodes.combined(statuses)).build();
        });
    }

    private CompletableFuture<SendResultEntry> sendOne(Message m, int queueId, RequestContext context, String bornHost,
        long now) {
        CompletableFuture<SendOutcome> outcome;
        try {
            outcome = sendProcessor.send(context, SendRequestMapping.toHeader(m, queueId, bornHost, now),
                m.getBody().toByteArray(), false, RemotingVersion.CURRENT);
        } catch (RuntimeException e) {
            outcome = CompletableFuture.failedFuture(e);
        }
        return outcome.handle((r, failure) -> {
            if (failure != null || r == null) {
                log.warn("gRPC send to {} failed: {}", m.getTopic().getName(), String.valueOf(failure));
                return entry(m, GrpcCodes.status(Code.INTERNAL_SERVER_ERROR, "the send failed: " + failure));
            }
            Status status = GrpcCodes.fromRemoting(r.code(), r.remark());
            String messageId = m.getSystemProperties().getMessageId();
            SendResultEntry.Builder entry = SendResultEntry.newBuilder().setStatus(status).setMessageId(messageId);
            if (r.stored()) {
                entry.setTransactionId(messageId).setOffset(r.queueOffset());
                if (m.getSystemProperties().getMessageType() == MessageType.TRANSACTION) {
                    transactions.remember(m.getTopic().getName(), messageId,
                        new TransactionOffsets.Location(r.queueOffset(), r.commitLogOffset()));
                }
            }
            return entry.build();
        });
    }

    private static SendResultEntry entry(Message m, Status status) {
        return SendResultEntry.newBuilder().setStatus(status).setMessageId(m.getSystemProperties().getMessageId())
            .build();
    }
}
