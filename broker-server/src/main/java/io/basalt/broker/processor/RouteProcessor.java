package io.basalt.broker.processor;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.basalt.broker.protocol.RouteBodies;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;

/**
 * The NameServer role of a single broker: GET_ROUTEINFO_BY_TOPIC (this broker as the topic's only
 * master) and GET_BROKER_CLUSTER_INFO, so that {@code namesrvAddr=<broker address>} in a client is a
 * complete deployment. Safe for concurrent calls.
 */
public final class RouteProcessor implements RequestProcessor {
    private final RouteBodies.BrokerIdentity identity;
    private final Supplier<Map<Long, String>> brokerAddrs;
    private final TopicConfigManager topics;

    /**
     * @param brokerAddrs the broker group as clients should see it now: brokerId (0 = master) → address
     */
    public RouteProcessor(RouteBodies.BrokerIdentity identity, Supplier<Map<Long, String>> brokerAddrs,
                          TopicConfigManager topics) {
        this.identity = identity;
        this.brokerAddrs = brokerAddrs;
        this.topics = topics;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        RemotingCommand response;
        if (request.code() == RequestCode.GET_BROKER_CLUSTER_INFO) {
            response = RemotingCommand.response(ResponseCode.SUCCESS, null);
            response.setBody(RouteBodies.clusterInfo(identity, brokerAddrs.get()));
            return CompletableFuture.completedFuture(response);
        }
        String topic = new RequestFields(request).string("topic");
        TopicConfig config = topic == null ? null : topics.get(topic);
        if (config == null) {
            response = RemotingCommand.response(ResponseCode.TOPIC_NOT_EXIST,
                "No topic route info in name server for the topic: " + topic);
        } else {
            response = RemotingCommand.response(ResponseCode.SUCCESS, null);
            response.setBody(RouteBodies.topicRouteData(identity, brokerAddrs.get(), new RouteBodies.QueueRoute(
                config.readQueueNums(), config.writeQueueNums(), config.perm(), config.topicSysFlag())));
        }
        return CompletableFuture.completedFuture(response);
    }
}
