package io.basalt.broker.processor.admin;

import io.basalt.broker.processor.RequestFields;
import io.basalt.broker.protocol.TopicList;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import java.util.Set;
import java.util.TreeSet;

/**
 * The topic requests an admin tool sends to its NameServer, answered by the broker for itself (a
 * single-broker cluster): GET_ALL_TOPIC_LIST_FROM_NAMESERVER, GET_TOPICS_BY_CLUSTER (this broker's
 * topics for its own cluster, none for another) and DELETE_TOPIC_IN_NAMESRV (the route disappears
 * with the topic, which DELETE_TOPIC_IN_BROKER has already removed). Safe for concurrent calls.
 */
public final class NameServerTopicProcessor extends ImmediateAdminProcessor {
    private final String clusterName;
    private final TopicConfigManager topics;

    public NameServerTopicProcessor(String clusterName, TopicConfigManager topics) {
        this.clusterName = clusterName;
        this.topics = topics;
    }

    @Override
    protected RemotingCommand answer(RemotingCommand request, RequestFields fields, RequestContext context)
        throws RequestFields.BadRequestException {
        return switch (request.code()) {
            case RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER -> topicList(true);
            case RequestCode.GET_TOPICS_BY_CLUSTER -> topicList(clusterName.equals(fields.requireString("cluster")));
            case RequestCode.DELETE_TOPIC_IN_NAMESRV -> {
                fields.requireString("topic");
                yield RemotingCommand.response(ResponseCode.SUCCESS, null);
            }
            default -> null;
        };
    }

    private RemotingCommand topicList(boolean ours) {
        Set<String> names = new TreeSet<>();
        if (ours) {
            for (TopicConfig config : topics.all()) {
                names.add(config.topicName());
            }
        }
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(new TopicList(names, null).encode());
        return response;
    }
}
