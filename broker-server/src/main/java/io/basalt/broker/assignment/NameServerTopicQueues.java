package io.basalt.broker.assignment;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import io.basalt.broker.protocol.MessageQueue;
import io.basalt.broker.protocol.TopicRouteQueues;
import io.basalt.remoting.json.JsonException;
import io.basalt.remoting.netty.NettyRemotingClient;
import io.basalt.remoting.netty.RemotingException;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The route of a broker behind NameServers: the topic's route asked from them (GET_ROUTEINFO_BY_TOPIC), so that a
 * topic spread over several brokers is allocated over all their queues, as RocketMQ's {@code TopicRouteInfoManager}
 * does. A route is kept {@value #ROUTE_TTL_MS} ms (RocketMQ's {@code loadBalancePollNameServerInterval}); the
 * NameServers are asked in turn until one answers. Thread-safe; the asking runs on the caller's thread.
 */
public final class NameServerTopicQueues implements TopicQueues {
    private static final Logger log = LoggerFactory.getLogger(NameServerTopicQueues.class);
    static final long ROUTE_TTL_MS = 30_000;

    private record Cached(Optional<List<MessageQueue>> queues, long fetchedAt) {
    }

    private final List<String> nameServers;
    private final Supplier<NettyRemotingClient> clients;
    private final long timeoutMs;
    private final LongSupplier clock;
    private final Map<String, Cached> routes = new ConcurrentHashMap<>();

    /** @param clients makes a remoting client for one round of questions; it is closed after it */
    public NameServerTopicQueues(List<String> nameServers, Supplier<NettyRemotingClient> clients, long timeoutMs,
                                 LongSupplier clock) {
        this.nameServers = List.copyOf(nameServers);
        this.clients = clients;
        this.timeoutMs = timeoutMs;
        this.clock = clock;
    }

    @Override
    public Optional<List<MessageQueue>> readableQueues(String topic) throws RouteUnavailableException {
        Cached cached = routes.get(topic);
        long now = clock.getAsLong();
        if (cached != null && now - cached.fetchedAt() < ROUTE_TTL_MS) {
            return cached.queues();
        }
        Optional<List<MessageQueue>> fetched = fetch(topic);
        routes.put(topic, new Cached(fetched, now));
        return fetched;
    }

    private Optional<List<MessageQueue>> fetch(String topic) throws RouteUnavailableException {
        StringBuilder problems = new StringBuilder();
        try (NettyRemotingClient client = clients.get()) {
            for (String nameServer : nameServers) {
                RemotingCommand request = RemotingCommand.request(RequestCode.GET_ROUTEINFO_BY_TOPIC);
                request.putExtField("topic", topic);
                try {
                    RemotingCommand answer = client.invokeSync(nameServer, request, timeoutMs);
                    if (answer.code() == ResponseCode.TOPIC_NOT_EXIST) {
                        return Optional.empty();
                    }
                    if (answer.code() == ResponseCode.SUCCESS && answer.body() != null) {
                        return Optional.of(TopicRouteQueues.readable(topic, answer.body()));
                    }
                    problems.append(' ').append(nameServer).append(": code ").append(answer.code()).append(' ')
                        .append(answer.remark()).append(';');
                } catch (RemotingException | JsonException e) {
                    log.warn("NameServer {} did not give the route of {}: {}", nameServer, topic, e.toString());
                    problems.append(' ').append(nameServer).append(": ").append(e.getMessage()).append(';');
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new RouteUnavailableException("interrupted while asking the NameServers for the route of "
                        + topic);
                }
            }
        }
        throw new RouteUnavailableException("no NameServer gave the route of topic " + topic + ":" + problems);
    }
}
