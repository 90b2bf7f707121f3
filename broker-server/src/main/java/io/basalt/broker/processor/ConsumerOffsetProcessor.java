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
 * (a new group on a young queue starts at 0). Safe for concurrent calls.
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
        Boolean setZero = f.bool("setZeroIfNotFound");
        long min = store.getMinOffsetInQueue(topic, queueId);
        long max = store.getMaxOffsetInQueue(topic, queueId);
        if (!Boolean.FALSE.equals(setZero) && min <= 0 && max > 0) {
            // RocketMQ: a new group on a queue whose first message is still there starts from 0.
            return offset(0);
        }
        return RemotingCommand.response(ResponseCode.QUERY_NOT_FOUND, "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first");
    }

    private RemotingCommand update(RequestFields f, RequestContext context) throws RequestFields.BadRequestException {
        String group = f.requireString("consumerGroup");
        String topic = f.requireString("topic");
        int queueId = f.requireInt("queueId");
        long commitOffset = f.requireLong("commitOffset");
        TopicConfig config = topics.get(topic);
        if (config == null) {
            return RemotingCommand.response(ResponseCode.TOPIC_NOT_EXIST, "Topic " + topic + " not exist!");
        }
        if (queueId < 0 || queueId >= config.queueNums()) {
            return RemotingCommand.response(BrokerResponseCode.INVALID_PARAMETER, "QueueId " + queueId + " is illegal for topic "
                + topic + " with " + config.queueNums() + " queues");
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
