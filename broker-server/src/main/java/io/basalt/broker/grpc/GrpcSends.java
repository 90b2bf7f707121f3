package io.basalt.broker.grpc;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.MessageType;
import apache.rocketmq.v2.SendMessageResponse;
import apache.rocketmq.v2.SendResultEntry;
import apache.rocketmq.v2.Status;
import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SendMessage: the request's checks, then each message as a SEND_MESSAGE run by the broker's own send processor (so
 * timers, half messages, flush and replication behave exactly as for remoting producers), one result entry per
 * message. The half message's offsets are remembered for the EndTransaction that follows.
 */
final class GrpcSends {
    private static final Logger log = LoggerFactory.getLogger(GrpcSends.class);

    private final Function<String, TopicConfig> topics;
    private final IntUnaryOperator routePerm;
    private final int maxBodySize;
    private final RequestProcessor sendProcessor;
    private final TransactionOffsets transactions;
    private final QueueChoice queues = new QueueChoice();

    GrpcSends(Function<String, TopicConfig> topics, IntUnaryOperator routePerm, int maxBodySize,
              RequestProcessor sendProcessor, TransactionOffsets transactions) {
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
        RemotingCommand request = SendRequestMapping.toSendRequest(m, queueId, bornHost, now);
        CompletableFuture<RemotingCommand> response;
        try {
            response = sendProcessor.processRequest(context, request);
        } catch (Exception e) {
            response = CompletableFuture.failedFuture(e);
        }
        return response.handle((r, failure) -> {
            if (failure != null || r == null) {
                log.warn("gRPC send to {} failed: {}", m.getTopic().getName(), String.valueOf(failure));
                return entry(m, GrpcCodes.status(Code.INTERNAL_SERVER_ERROR, "the send failed: " + failure));
            }
            Status status = GrpcCodes.fromRemoting(r.code(), r.remark());
            boolean stored = r.code() == ResponseCode.SUCCESS || r.code() == ResponseCode.FLUSH_DISK_TIMEOUT
                || r.code() == ResponseCode.FLUSH_SLAVE_TIMEOUT || r.code() == ResponseCode.SLAVE_NOT_AVAILABLE;
            SendResultEntry.Builder entry = SendResultEntry.newBuilder().setStatus(status)
                .setMessageId(m.getSystemProperties().getMessageId());
            if (stored && r.extFields() != null) {
                String messageId = m.getSystemProperties().getMessageId();
                entry.setTransactionId(messageId);
                String queueOffset = r.extFields().get("queueOffset");
                if (queueOffset != null) {
                    entry.setOffset(Long.parseLong(queueOffset));
                }
                if (m.getSystemProperties().getMessageType() == MessageType.TRANSACTION) {
                    rememberHalf(m, r);
                }
            }
            return entry.build();
        });
    }

    private void rememberHalf(Message m, RemotingCommand r) {
        String msgId = r.extFields().get("msgId");
        String queueOffset = r.extFields().get("queueOffset");
        if (msgId == null || queueOffset == null) {
            return;
        }
        try {
            // an offset message id ends with the CommitLog offset, 16 hex digits
            String first = msgId.split(",")[0];
            long commitLogOffset = Long.parseUnsignedLong(first.substring(first.length() - 16), 16);
            transactions.remember(m.getTopic().getName(), m.getSystemProperties().getMessageId(),
                new TransactionOffsets.Location(Long.parseLong(queueOffset), commitLogOffset));
        } catch (RuntimeException e) {
            // the store lookup by transaction id still finds it
            log.debug("cannot read the half message offsets from {}: {}", msgId, e.toString());
        }
    }

    private static SendResultEntry entry(Message m, Status status) {
        return SendResultEntry.newBuilder().setStatus(status).setMessageId(m.getSystemProperties().getMessageId())
            .build();
    }
}
