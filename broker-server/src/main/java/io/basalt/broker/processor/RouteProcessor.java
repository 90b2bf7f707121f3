package io.basalt.broker.processor;

import java.util.concurrent.CompletableFuture;

import io.basalt.broker.protocol.RouteBodies;
import io.basalt.broker.topic.TopicConfig;
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
    private final BrokerContext broker;

    public RouteProcessor(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        RemotingCommand response;
        if (request.code() == RequestCode.GET_BROKER_CLUSTER_INFO) {
            response = RemotingCommand.response(ResponseCode.SUCCESS, null);
            response.setBody(RouteBodies.clusterInfo(broker.identity(), broker.brokerAddrs().get()));
            return CompletableFuture.completedFuture(response);
        }
        String topic = new RequestFields(request).string("topic");
        TopicConfig config = topic == null ? null : broker.topics().get(topic);
        if (config == null) {
            response = RemotingCommand.response(ResponseCode.TOPIC_NOT_EXIST,
                "No topic route info in name server for the topic: " + topic);
        } else {
            response = RemotingCommand.response(ResponseCode.SUCCESS, null);
            response.setBody(RouteBodies.topicRouteData(broker.identity(), broker.brokerAddrs().get(), new RouteBodies.QueueRoute(
                config.readQueueNums(), config.writeQueueNums(), config.perm(), config.topicSysFlag())));
        }
        return CompletableFuture.completedFuture(response);
    }
}
