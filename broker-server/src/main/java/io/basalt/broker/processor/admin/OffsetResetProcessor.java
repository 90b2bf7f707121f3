package io.basalt.broker.processor.admin;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;

import io.basalt.broker.client.ClientManager;
import io.basalt.broker.client.ConsumerGroupInfo;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.processor.RequestFields;
import io.basalt.broker.protocol.MessageQueue;
import io.basalt.broker.protocol.ResetOffsetBody;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.LanguageCode;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.BoundaryType;
import io.basalt.store.MessageStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * INVOKE_BROKER_TO_RESET_OFFSET (mqadmin {@code resetOffsetByTime}, {@code skipAccumulatedMessage}, the
 * dashboard's reset), on either of RocketMQ 5.2.0's paths:
 * <ul>
 * <li>{@code useServerSideResetOffset=true} (default): the broker records each queue's target
 * ({@link ConsumerOffsetManager#assignResetOffset}), the next pull of the queue moves the consumer there, and
 * the group need not be online;</li>
 * <li>{@code false}: the broker computes the targets and sends them to every online client of the group in
 * RESET_CONSUMER_CLIENT_OFFSET (one-way), refusing with CONSUMER_NOT_ONLINE when there is none; the push
 * consumers then move and commit, the broker's committed offsets are not touched.</li>
 * </ul>
 * Answered with the queues reset and their offsets (ResetOffsetBody; ResetOffsetBodyForC to a CPP client).
 * Safe for concurrent calls.
 */
public final class OffsetResetProcessor implements RequestProcessor {
    private static final Logger log = LoggerFactory.getLogger(OffsetResetProcessor.class);
    /** RocketMQ's {@code MQVersion.Version.V3_0_7}: older clients do not understand RESET_CONSUMER_CLIENT_OFFSET. */
    static final int V3_0_7 = 29;

    private final String brokerName;
    private final boolean serverSide;
    private final BooleanSupplier slave;
    private final TopicConfigManager topics;
    private final SubscriptionGroupManager groups;
    private final ConsumerOffsetManager offsets;
    private final ClientManager clients;
    private final MessageStore store;
    private final BiConsumer<String, Integer> wakeHeldPulls;

    /**
     * @param serverSide {@code useServerSideResetOffset}
     * @param slave whether this broker is a slave now
     * @param wakeHeldPulls re-runs the pulls held for (topic, queueId), so that a reset reaches a waiting consumer now
     */
    public OffsetResetProcessor(String brokerName, boolean serverSide, BooleanSupplier slave, TopicConfigManager topics,
        SubscriptionGroupManager groups, ConsumerOffsetManager offsets, ClientManager clients, MessageStore store,
        BiConsumer<String, Integer> wakeHeldPulls) {
        this.brokerName = brokerName;
        this.serverSide = serverSide;
        this.slave = slave;
        this.topics = topics;
        this.groups = groups;
        this.offsets = offsets;
        this.clients = clients;
        this.store = store;
        this.wakeHeldPulls = wakeHeldPulls;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        RemotingCommand response;
        if (request.code() != RequestCode.INVOKE_BROKER_TO_RESET_OFFSET) {
            response = RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                "request type " + request.code() + " not supported");
            return CompletableFuture.completedFuture(response);
        }
        try {
            RequestFields fields = new RequestFields(request);
            Request reset = new Request(fields.requireString("topic"), fields.requireString("group"),
                fields.intValue("queueId", -1), fields.longValue("offset", -1), fields.requireLong("timestamp"),
                fields.bool("isForce", false), request.language() == LanguageCode.CPP);
            response = serverSide ? resetInBroker(reset) : resetInClients(reset);
        } catch (RequestFields.BadRequestException e) {
            response = RequestFields.badRequest(e);
        }
        return CompletableFuture.completedFuture(response);
    }

    /** A decoded ResetOffsetRequestHeader; {@code offset} −1 and {@code queueId} −1 mean "not given". */
    record Request(String topic, String group, int queueId, long offset, long timestamp, boolean force, boolean cpp) {
    }

    private RemotingCommand resetInBroker(Request r) {
        if (slave.getAsBoolean()) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "Can not reset offset in slave broker");
        }
        TopicConfig config = topics.get(r.topic());
        if (config == null) {
            return RemotingCommand.response(ResponseCode.TOPIC_NOT_EXIST, "Topic " + r.topic() + " does not exist");
        }
        if (groups.get(r.group()).isEmpty()) {
            return RemotingCommand.response(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, "Group " + r.group() + " does not exist");
        }
        Map<Integer, Long> targets = new LinkedHashMap<>();
        if (r.queueId() >= 0) {
            if (r.queueId() >= config.readQueueNums()) {
                return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "Queue " + r.queueId() + " does not exist: topic "
                    + r.topic() + " has " + config.readQueueNums() + " read queues on broker " + brokerName);
            }
            if (r.offset() != -1) {
                long min = store.getMinOffsetInQueue(r.topic(), r.queueId());
                long max = store.getMaxOffsetInQueue(r.topic(), r.queueId());
                // RocketMQ also accepts max + 1, an offset no message will ever have; Basalt stops at the queue's end
                if (r.offset() < min || r.offset() > max) {
                    return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, String.format(
                        "Target offset %d not in consume queue range [%d-%d]", r.offset(), min, max));
                }
                targets.put(r.queueId(), r.offset());
            } else {
                targets.put(r.queueId(), offsetAt(r.topic(), r.queueId(), r.timestamp()));
            }
        } else {
            for (int queueId = 0; queueId < config.readQueueNums(); queueId++) {
                targets.put(queueId, offsetAt(r.topic(), queueId, r.timestamp()));
            }
        }
        Map<MessageQueue, Long> reset = new LinkedHashMap<>();
        for (Map.Entry<Integer, Long> target : targets.entrySet()) {
            try {
                offsets.assignResetOffset(r.topic(), r.group(), target.getKey(), target.getValue());
            } catch (IOException e) {
                return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "recording the reset of " + r.group() + " on "
                    + r.topic() + " queue " + target.getKey() + " failed (" + e.getMessage() + "); queues reset before it: "
                    + reset.keySet().stream().map(MessageQueue::queueId).toList());
            }
            reset.put(new MessageQueue(r.topic(), brokerName, target.getKey()), target.getValue());
            wakeHeldPulls.accept(r.topic(), target.getKey());
        }
        log.info("reset offsets of group {} on topic {} (timestamp {}): {}", r.group(), r.topic(), r.timestamp(), targets);
        return answer(reset, r.cpp());
    }

    /** RocketMQ's server-side target: the queue's end for a negative timestamp, else the first message stored at or after it. */
    private long offsetAt(String topic, int queueId, long timestamp) {
        if (timestamp < 0) {
            return store.getMaxOffsetInQueue(topic, queueId);
        }
        return store.getOffsetInQueueByTime(topic, queueId, timestamp, BoundaryType.LOWER);
    }

    /** RocketMQ's {@code Broker2Client.resetOffset}: targets computed here, applied by the online push consumers. */
    private RemotingCommand resetInClients(Request r) {
        TopicConfig config = topics.get(r.topic());
        if (config == null) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR,
                "[reset-offset] reset offset failed, no topic in this broker. topic=" + r.topic());
        }
        Map<MessageQueue, Long> table = new LinkedHashMap<>();
        boolean anyCommitted = false;
        for (int queueId = 0; queueId < config.writeQueueNums(); queueId++) {
            long committed = offsets.queryOffset(r.group(), r.topic(), queueId);
            long target = r.timestamp() == -1 ? store.getMaxOffsetInQueue(r.topic(), queueId)
                : Math.max(0, store.getOffsetInQueueByTime(r.topic(), queueId, r.timestamp(), BoundaryType.LOWER));
            anyCommitted |= committed >= 0;
            // without force a reset only moves a group back. RocketMQ refuses the whole reset when one queue has no
            // committed offset, which a queue that never held a message does not have: such a queue gets its target
            table.put(new MessageQueue(r.topic(), brokerName, queueId),
                committed < 0 || r.force() || target < committed ? target : committed);
        }
        if (!anyCommitted) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "The consumer group <" + r.group()
                + "> not exist: it has no committed offset of topic " + r.topic());
        }
        ConsumerGroupInfo info = clients.consumerGroup(r.group());
        List<ConsumerGroupInfo.Member> members = info == null ? List.of() : info.members().stream()
            .filter(m -> m.connection() != null && m.connection().isActive()).toList();
        if (members.isEmpty()) {
            return RemotingCommand.response(ResponseCode.CONSUMER_NOT_ONLINE, String.format(
                "Consumer not online, so can not reset offset, Group: %s Topic: %s Timestamp: %d", r.group(), r.topic(),
                r.timestamp()));
        }
        List<String> grpc = members.stream().filter(m -> !m.remoting()).map(ConsumerGroupInfo.Member::clientId).toList();
        if (!grpc.isEmpty()) {
            // a 5.x SDK consumer receives by POP from the broker's offsets and has no command to move its own
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "the consumer group <" + r.group() + "> has gRPC"
                + " consumers " + grpc + ", which a client-side offset reset cannot reach; nothing was sent. Reset on"
                + " the broker instead (useServerSideResetOffset=true)");
        }
        List<String> old = new ArrayList<>();
        for (ConsumerGroupInfo.Member member : members) {
            if (member.version() < V3_0_7) {
                old.add(member.clientId());
            }
        }
        if (!old.isEmpty()) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "the client does not support this feature. version="
                + old + "; clients older than V3_0_7 cannot reset their offsets, nothing was sent");
        }
        byte[] body = new ResetOffsetBody(table).encode();
        for (ConsumerGroupInfo.Member member : members) {
            RemotingCommand push = RemotingCommand.request(RequestCode.RESET_CONSUMER_CLIENT_OFFSET);
            push.putExtField("topic", r.topic());
            push.putExtField("group", r.group());
            push.putExtField("timestamp", Long.toString(r.timestamp()));
            push.putExtField("queueId", "-1");
            push.putExtField("isForce", "false");
            push.setBody(body);
            member.connection().invokeOneway(push).whenComplete((ok, error) -> {
                if (error != null) {
                    log.warn("sending the offset reset of group {} topic {} to {} failed: {}", r.group(), r.topic(),
                        member.clientId(), error.toString());
                }
            });
        }
        log.info("sent the offset reset of group {} on topic {} (timestamp {}) to {}: {}", r.group(), r.topic(),
            r.timestamp(), members.stream().map(ConsumerGroupInfo.Member::clientId).toList(), table);
        return answer(table, r.cpp());
    }

    private static RemotingCommand answer(Map<MessageQueue, Long> table, boolean cpp) {
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        ResetOffsetBody body = new ResetOffsetBody(table);
        response.setBody(cpp ? body.encodeForC() : body.encode());
        return response;
    }
}
