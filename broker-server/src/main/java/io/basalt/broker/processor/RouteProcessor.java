package io.basalt.broker.processor;

import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
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
    /** A topic's orderTopicConf as a NameServer puts it in routes (ORDER_TOPIC_CONFIG with orderMessageEnable). */
    private final Function<String, Optional<String>> orderTopicConf;

    /**
     * @param brokerAddrs the broker group as clients should see it now: brokerId (0 = master) → address
     */
    public RouteProcessor(RouteBodies.BrokerIdentity identity, Supplier<Map<Long, String>> brokerAddrs,
                          TopicConfigManager topics) {
        this(identity, brokerAddrs, topics, topic -> Optional.empty());
    }

    /** @param orderTopicConf a topic's {@code orderTopicConf} for its route, or empty */
    public RouteProcessor(RouteBodies.BrokerIdentity identity, Supplier<Map<Long, String>> brokerAddrs,
                          TopicConfigManager topics, Function<String, Optional<String>> orderTopicConf) {
        this.identity = identity;
        this.brokerAddrs = brokerAddrs;
        this.topics = topics;
        this.orderTopicConf = orderTopicConf;
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
                config.readQueueNums(), config.writeQueueNums(), topics.brokerPermission().routePerm(config.perm()),
                config.topicSysFlag()), orderTopicConf.apply(topic).orElse(null)));
        }
        return CompletableFuture.completedFuture(response);
    }
}
