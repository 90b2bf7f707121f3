package io.basalt.broker.processor;

import java.util.concurrent.CompletableFuture;

import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.BoundaryType;
import io.basalt.store.MessageStore;

/**
 * Offsets: QUERY_CONSUMER_OFFSET, UPDATE_CONSUMER_OFFSET (usually one-way), GET_MIN_OFFSET,
 * GET_MAX_OFFSET, SEARCH_OFFSET_BY_TIMESTAMP and GET_EARLIEST_MSG_STORETIME, with RocketMQ's rules
 * (a new group starts at 0 only while the queue's first message is still in memory). Safe for concurrent calls.
 */
public final class ConsumerOffsetProcessor implements RequestProcessor {
    private final MessageStore store;
    private final TopicConfigManager topics;
    private final ConsumerOffsetManager offsets;

    public ConsumerOffsetProcessor(MessageStore store, TopicConfigManager topics, ConsumerOffsetManager offsets) {
        this.store = store;
        this.topics = topics;
        this.offsets = offsets;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        RequestFields f = new RequestFields(request);
        RemotingCommand response;
        try {
            response = switch (request.code()) {
                case RequestCode.QUERY_CONSUMER_OFFSET -> query(f);
                case RequestCode.UPDATE_CONSUMER_OFFSET -> update(f, context);
                case RequestCode.GET_MIN_OFFSET -> offset(store.getMinOffsetInQueue(f.requireString("topic"),
                    f.requireInt("queueId")));
                case RequestCode.GET_MAX_OFFSET -> offset(store.getMaxOffsetInQueue(f.requireString("topic"),
                    f.requireInt("queueId")));
                case RequestCode.SEARCH_OFFSET_BY_TIMESTAMP -> search(f);
                case RequestCode.GET_EARLIEST_MSG_STORETIME -> earliest(f);
                default -> RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                    " request type " + request.code() + " not supported");
            };
        } catch (RequestFields.BadRequestException e) {
            response = RemotingCommand.response(BrokerResponseCode.INVALID_PARAMETER, e.getMessage());
        }
        return CompletableFuture.completedFuture(response);
    }

    private RemotingCommand query(RequestFields f) throws RequestFields.BadRequestException {
        String group = f.requireString("consumerGroup");
        String topic = f.requireString("topic");
        int queueId = f.requireInt("queueId");
        long offset = offsets.queryOffset(group, topic, queueId);
        if (offset >= 0) {
            return offset(offset);
        }
        if (Boolean.FALSE.equals(f.bool("setZeroIfNotFound"))) {
            return RemotingCommand.response(ResponseCode.QUERY_NOT_FOUND, "Not found, do not set to zero, maybe this group boot first");
        }
        if (startsAtZero(topic, queueId)) {
            return offset(0);
        }
        return RemotingCommand.response(ResponseCode.QUERY_NOT_FOUND, "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first");
    }

    /**
     * RocketMQ's first-offset rule for a group without a committed offset: it starts at 0 only while the queue
     * still holds its first message and that message is still in memory (within {@code accessMessageInMemoryMaxRatio}
     * % of physical memory behind the CommitLog's end). Otherwise the broker answers QUERY_NOT_FOUND and the client
     * applies its {@code ConsumeFromWhere}: CONSUME_FROM_LAST_OFFSET, the default, then starts at the queue's end
     * instead of replaying all the history the broker retains.
     */
    private boolean startsAtZero(String topic, int queueId) {
        return store.getMinOffsetInQueue(topic, queueId) <= 0 && store.isInMemory(topic, queueId, 0);
    }

    private RemotingCommand update(RequestFields f, RequestContext context) throws RequestFields.BadRequestException {
        String group = f.requireString("consumerGroup");
        String topic = f.requireString("topic");
        int queueId = f.requireInt("queueId");
        long commitOffset = f.requireLong("commitOffset");
        if (commitOffset < 0) {
            // Stored, a negative offset would read as "no offset" and restart the group by its consume-from rule.
            return RemotingCommand.response(BrokerResponseCode.INVALID_PARAMETER, "commitOffset " + commitOffset
                + " is negative; offsets start at 0 (group " + group + ", topic " + topic + ", queue " + queueId + ")");
        }
        TopicConfig config = topics.get(topic);
        if (config == null) {
            return RemotingCommand.response(ResponseCode.TOPIC_NOT_EXIST, "Topic " + topic + " not exist!");
        }
        if (queueId < 0 || queueId >= config.queueNums()) {
            return RemotingCommand.response(BrokerResponseCode.INVALID_PARAMETER, "QueueId " + queueId + " is illegal for topic "
                + topic + " with " + config.queueNums() + " queues");
        }
        if (offsets.resets().isPending(topic, group, queueId)) {
            // RocketMQ's answer: the consumer's position predates the operator's reset, which its next pull delivers
            return RemotingCommand.response(ResponseCode.SUCCESS, "Offset has been previously reset");
        }
        offsets.commitOffset(String.valueOf(context.remoteAddress()), group, topic, queueId, commitOffset);
        return RemotingCommand.response(ResponseCode.SUCCESS, null);
    }

    private RemotingCommand search(RequestFields f) throws RequestFields.BadRequestException {
        String topic = f.requireString("topic");
        int queueId = f.requireInt("queueId");
        long timestamp = f.requireLong("timestamp");
        String boundary = f.string("boundaryType");
        BoundaryType type = boundary != null && boundary.equalsIgnoreCase("upper") ? BoundaryType.UPPER : BoundaryType.LOWER;
        return offset(store.getOffsetInQueueByTime(topic, queueId, timestamp, type));
    }

    private RemotingCommand earliest(RequestFields f) throws RequestFields.BadRequestException {
        String topic = f.requireString("topic");
        int queueId = f.requireInt("queueId");
        long min = store.getMinOffsetInQueue(topic, queueId);
        long time = store.getMessageStoreTimeStamp(topic, queueId, min);
        if (time < 0) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "no message in queue " + queueId + " of topic " + topic);
        }
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.putExtField("timestamp", Long.toString(time));
        return response;
    }

    private static RemotingCommand offset(long offset) {
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.putExtField("offset", Long.toString(offset));
        return response;
    }
}
