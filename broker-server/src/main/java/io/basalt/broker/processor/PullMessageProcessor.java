package io.basalt.broker.processor;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.basalt.broker.client.ConsumerGroupInfo;
import io.basalt.broker.client.SubscriptionData;
import io.basalt.broker.filter.ConsumerFilters;
import io.basalt.broker.longpolling.PullRequestHoldService;
import io.basalt.broker.subscription.SubscriptionGroupConfig;
import io.basalt.broker.topic.BrokerPermission;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.PullMessageRequestHeader;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RemotingCommandException;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.GetMessageResult;
import io.basalt.store.GetMessageStatus;
import io.basalt.store.MessageFilter;
import io.basalt.store.MessageStore;

/**
 * PULL_MESSAGE (push consumer) and LITE_PULL_MESSAGE (lite pull consumer): RocketMQ's checks (the
 * subscription group exists, auto-created if allowed, and has {@code consumeEnable}; the topic is readable) and
 * status mapping, tag filtering by ConsumeQueue tags code or SQL92 filtering by the stored records'
 * properties ({@link ConsumerFilters}), commit-offset piggy-backing, and long
 * polling — a pull that finds nothing new with the SUSPEND flag is held in the
 * {@link PullRequestHoldService} until a message for its queue arrives or its suspend timeout passes,
 * then re-run once without suspension. Safe for concurrent calls.
 */
public final class PullMessageProcessor implements RequestProcessor {
    static final int FLAG_COMMIT_OFFSET = 0x1;
    static final int FLAG_SUSPEND = 0x2;
    static final int FLAG_SUBSCRIPTION = 0x4;
    /** RocketMQ's {@code ForbiddenType.GROUP_FORBIDDEN}, the pull response's {@code forbiddenType} for a disabled group. */
    static final int GROUP_FORBIDDEN = 2;
    /** RocketMQ's {@code ForbiddenType.SUBSCRIPTION_FORBIDDEN}: the group may not read this topic (its forbiddenTable). */
    static final int SUBSCRIPTION_FORBIDDEN = 5;

    private final MessageStore store;
    private final TopicConfigManager topics;
    private final ConsumerGroups consumers;
    private final LongPolling longPolling;
    private final SlaveReadPolicy slaveReads;
    private final BrokerCounters counters;
    private final ConsumerFilters filters;

    /**
     * @param slaveReads which broker a consumer should read from next, and whether this slave serves pulls
     */
    public PullMessageProcessor(MessageStore store, TopicConfigManager topics, ConsumerGroups consumers,
                                LongPolling longPolling, SlaveReadPolicy slaveReads, BrokerCounters counters,
                                ConsumerFilters filters) {
        this.store = store;
        this.topics = topics;
        this.consumers = consumers;
        this.longPolling = longPolling;
        this.slaveReads = slaveReads;
        this.counters = counters;
        this.filters = filters;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        if (slaveReads.rejectsPulls()) {
            // RocketMQ 5.x's rejectRequest() of a slave without slaveReadEnable, answered as its remoting layer does, with
            // the reason added: RocketMQ's bare "system busy" sends operators looking for load instead of the setting
            return CompletableFuture.completedFuture(RemotingCommand.response(ResponseCode.SYSTEM_BUSY,
                "[REJECTREQUEST]system busy, start flow control for a while: this broker is a slave and"
                    + " slaveReadEnable=false, so it serves no pulls; read from the master, or set slaveReadEnable=true"));
        }
        PullMessageRequestHeader header;
        try {
            header = PullMessageRequestHeader.decode(request.extFields() == null ? java.util.Map.of() : request.extFields());
        } catch (RemotingCommandException e) {
            return CompletableFuture.completedFuture(RemotingCommand.response(BrokerResponseCode.INVALID_PARAMETER,
                "bad pull request header: " + e.getMessage()));
        }
        CompletableFuture<RemotingCommand> answer = new CompletableFuture<>();
        RemotingCommand now = pull(header, true, answer);
        if (now != null) {
            answer.complete(now);
        }
        return answer;
    }

    /** Returns the response, or null when the pull was suspended ({@code answer} completes later). */
    private RemotingCommand pull(PullMessageRequestHeader h, boolean suspendAllowed, CompletableFuture<RemotingCommand> answer) {
        if (!topics.brokerPermission().readable()) {
            RemotingCommand response = RemotingCommand.response(ResponseCode.NO_PERMISSION,
                topics.brokerPermission().forbidden("pulling"));
            response.putExtField("forbiddenType", Integer.toString(BrokerPermission.BROKER_FORBIDDEN));
            return response;
        }
        RemotingCommand refused = checkGroup(h.getConsumerGroup());
        if (refused != null) {
            return refused;
        }
        String topic = h.getTopic();
        TopicConfig config = topics.get(topic);
        if (config == null) {
            return RemotingCommand.response(ResponseCode.TOPIC_NOT_EXIST, "topic[" + topic + "] not exist, apply first please!");
        }
        if (!config.isReadable()) {
            return RemotingCommand.response(ResponseCode.NO_PERMISSION, "the topic[" + topic + "] pulling message is forbidden");
        }
        int queueId = h.getQueueId();
        if (queueId < 0 || queueId >= config.readQueueNums()) {
            return RemotingCommand.response(BrokerResponseCode.INVALID_PARAMETER, "queueId[" + queueId
                + "] is illegal, topic:[" + topic + "] topicConfig.readQueueNums:[" + config.readQueueNums() + "]");
        }
        // RocketMQ checks the forbidden table only for pulls without a subscription; an operator who takes a topic
        // from a group expects every pull of it refused, so Basalt checks them all.
        if (consumers.subscriptionGroups().isReadForbidden(h.getConsumerGroup(), topic)) {
            RemotingCommand response = RemotingCommand.response(ResponseCode.NO_PERMISSION,
                "the consumer group[" + h.getConsumerGroup() + "] is forbidden for topic[" + topic + "]");
            response.putExtField("forbiddenType", Integer.toString(SUBSCRIPTION_FORBIDDEN));
            return response;
        }
        int sysFlag = h.getSysFlag();
        SubscriptionData subscription;
        if ((sysFlag & FLAG_SUBSCRIPTION) != 0) {
            subscription = SubscriptionData.of(topic, h.getSubscription(), h.getSubVersion(), h.getExpressionType());
        } else {
            ConsumerGroupInfo group = consumers.clients().consumerGroup(h.getConsumerGroup());
            subscription = group == null ? null : group.subscription(topic);
            if (subscription == null) {
                return RemotingCommand.response(ResponseCode.SUBSCRIPTION_NOT_EXIST, "the consumer's subscription of "
                    + topic + " in group " + h.getConsumerGroup() + " does not exist (no heartbeat yet?)");
            }
            if (subscription.subVersion() < h.getSubVersion()) {
                return RemotingCommand.response(ResponseCode.SUBSCRIPTION_NOT_LATEST, "the consumer's subscription not latest");
            }
        }
        ConsumerFilters.Selection selection = filters.forPull(h.getConsumerGroup(), subscription,
            (sysFlag & FLAG_SUBSCRIPTION) != 0, h.getSubVersion());
        if (selection.isRefused()) {
            return RemotingCommand.response(selection.code(), selection.remark());
        }
        // an operator's server-side reset of this queue (INVOKE_BROKER_TO_RESET_OFFSET): delivered once, before the
        // pull's piggy-backed commit, which would otherwise store the consumer's old position over the reset
        Long resetTo = consumers.offsets().resets().take(topic, h.getConsumerGroup(), queueId);
        if (resetTo != null) {
            return offsetReset(topic, queueId, resetTo);
        }
        if (suspendAllowed && (sysFlag & FLAG_COMMIT_OFFSET) != 0 && h.getCommitOffset() != null && h.getCommitOffset() >= 0) {
            consumers.offsets().commitOffset(null, h.getConsumerGroup(), topic, queueId, h.getCommitOffset());
        }
        long offset = h.getQueueOffset();
        MessageFilter filter = selection.filter();
        GetMessageResult result = store.getMessage(h.getConsumerGroup(), topic, queueId, offset,
            Math.max(1, h.getMaxMsgNums()), filter);
        counters.pullRequest();
        boolean handedOver = false;
        try {
            SlaveReadPolicy.Decision decision = slaveReads.decide(
                consumers.subscriptionGroups().get(h.getConsumerGroup())
                    .orElseGet(() -> SubscriptionGroupConfig.defaults(h.getConsumerGroup())),
                result.suggestPullingFromSlave(), result.status(), code(result.status(), offset));
            if (decision.code() == ResponseCode.PULL_NOT_FOUND) {
                if (suspendAllowed && (sysFlag & FLAG_SUSPEND) != 0) {
                    long timeout = Math.min(Math.max(0, h.getSuspendTimeoutMillis()), longPolling.maxSuspendMs());
                    PullRequestHoldService.HeldPull held = new PullRequestHoldService.HeldPull(topic, queueId, offset,
                        System.currentTimeMillis() + timeout, filter::isMatchedByConsumeQueue,
                        () -> answer.complete(safePull(h, answer)));
                    if (longPolling.hold().suspend(held)) {
                        return null;
                    }
                }
            }
            if (result.status() == GetMessageStatus.FOUND) {
                counters.got(topic, h.getConsumerGroup(), result.messageCount(), result.bufferTotalSize());
            }
            RemotingCommand response = respond(result, offset, decision);
            handedOver = response.bodySlices() != null;
            return response;
        } finally {
            if (!handedOver) {
                result.close();
            }
        }
    }

    /**
     * RocketMQ's group checks, before the topic's: the group exists (or may be created), may consume, and may
     * consume by broadcast if its consumers broadcast.
     */
    private RemotingCommand checkGroup(String group) {
        Optional<SubscriptionGroupConfig> config;
        try {
            config = consumers.subscriptionGroups().findOrAutoCreate(group);
        } catch (IOException e) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "recording subscription group [" + group
                + "] failed: " + e.getMessage());
        }
        if (config.isEmpty()) {
            return RemotingCommand.response(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, "subscription group [" + group
                + "] does not exist and is not created: autoCreateSubscriptionGroup is false or the name is invalid");
        }
        if (!config.get().consumeEnable()) {
            RemotingCommand response = RemotingCommand.response(ResponseCode.NO_PERMISSION,
                "subscription group no permission, " + group);
            response.putExtField("forbiddenType", Integer.toString(GROUP_FORBIDDEN));
            return response;
        }
        return BroadcastPermission.refusal(config.get(), consumers.clients().consumerGroup(group));
    }

    private RemotingCommand safePull(PullMessageRequestHeader h, CompletableFuture<RemotingCommand> answer) {
        try {
            return pull(h, false, answer);
        } catch (RuntimeException e) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "pull failed: " + e);
        }
    }

    /**
     * RocketMQ's answer to a pull of a queue with a pending reset: status OFFSET_RESET as PULL_OFFSET_MOVED with
     * the target as {@code nextBeginOffset}; every 5.2.0 client then continues from there (a push consumer
     * also commits it and re-adds the queue).
     */
    private RemotingCommand offsetReset(String topic, int queueId, long target) {
        RemotingCommand response = RemotingCommand.response(ResponseCode.PULL_OFFSET_MOVED, GetMessageStatus.OFFSET_RESET.name());
        response.putExtField("suggestWhichBrokerId", Long.toString(SlaveReadPolicy.MASTER_ID));
        response.putExtField("nextBeginOffset", Long.toString(target));
        response.putExtField("minOffset", Long.toString(store.getMinOffsetInQueue(topic, queueId)));
        response.putExtField("maxOffset", Long.toString(store.getMaxOffsetInQueue(topic, queueId)));
        return response;
    }

    /** RocketMQ's mapping of a read status to the pull response code (broker composeResponseHeader). */
    private static int code(GetMessageStatus status, long requestOffset) {
        return switch (status) {
            case FOUND -> ResponseCode.SUCCESS;
            case NO_MATCHED_MESSAGE, MESSAGE_WAS_REMOVING -> ResponseCode.PULL_RETRY_IMMEDIATELY;
            case NO_MESSAGE_IN_QUEUE, NO_MATCHED_LOGIC_QUEUE ->
                requestOffset != 0 ? ResponseCode.PULL_OFFSET_MOVED : ResponseCode.PULL_NOT_FOUND;
            case OFFSET_TOO_SMALL, OFFSET_OVERFLOW_BADLY, OFFSET_RESET -> ResponseCode.PULL_OFFSET_MOVED;
            case OFFSET_OVERFLOW_ONE, OFFSET_FOUND_NULL -> ResponseCode.PULL_NOT_FOUND;
            // Not a pull status: RocketMQ 5.2.0 clients raise it as a broker exception and pull the same
            // offset again after a pause (1 s lite pull, 3 s push), keeping the queue. PULL_NOT_FOUND
            // would be held and woken at once (the queue has messages past it): a busy loop.
            case MESSAGE_CORRUPT -> ResponseCode.SYSTEM_ERROR;
        };
    }

    private static RemotingCommand respond(GetMessageResult result, long requestOffset, SlaveReadPolicy.Decision decision) {
        GetMessageStatus status = result.status();
        int code = decision.code();
        long next = decision.keepRequestOffset() ? requestOffset
            : status == GetMessageStatus.NO_MESSAGE_IN_QUEUE || status == GetMessageStatus.NO_MATCHED_LOGIC_QUEUE
            ? 0 : result.nextBeginOffset();
        RemotingCommand response = RemotingCommand.response(code, status == GetMessageStatus.MESSAGE_CORRUPT
            ? "MESSAGE_CORRUPT: the CommitLog record at queue offset " + result.nextBeginOffset()
                + " is corrupt (CRC mismatch) and is not served; the broker log names its file and offset;"
                + " reset the consumer offset past it to read on"
            : status.name());
        response.putExtField("suggestWhichBrokerId", Long.toString(decision.suggestWhichBrokerId()));
        response.putExtField("nextBeginOffset", Long.toString(next));
        response.putExtField("minOffset", Long.toString(result.minOffset()));
        response.putExtField("maxOffset", Long.toString(result.maxOffset()));
        if (code == ResponseCode.SUCCESS) {
            // Zero copy: the records go out as views of the mapped CommitLog; the files stay mapped until
            // the write is done, then the result releases them.
            ByteBuffer[] slices = new ByteBuffer[result.messages().size()];
            for (int i = 0; i < slices.length; i++) {
                slices[i] = result.messages().get(i).buffer();
            }
            response.setBodySlices(slices, result::close);
        }
        return response;
    }
}
