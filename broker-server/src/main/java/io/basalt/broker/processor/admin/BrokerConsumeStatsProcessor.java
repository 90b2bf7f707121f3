package io.basalt.broker.processor.admin;

import io.basalt.broker.processor.RequestFields;
import io.basalt.broker.protocol.ConsumeStats;
import io.basalt.broker.protocol.ConsumeStatsList;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * GET_BROKER_CONSUME_STATS ({@code mqadmin brokerConsumeStats -b}): for every subscription group, its progress on
 * every topic it has committed offsets for ({@link GroupProgress}, over the write queues; only order topics with
 * {@code isOrder=true}; topics an online group does not subscribe to skipped), as RocketMQ's
 * {@code fetchAllConsumeStatsInBroker} answers it. The pull offset is the committed one, so
 * {@code totalInflightDiff} is 0, where RocketMQ reports minus the committed total. Safe for concurrent calls.
 */
public final class BrokerConsumeStatsProcessor implements RequestProcessor {
    private final String brokerAddr;
    private final TopicConfigManager topics;
    private final SubscriptionGroupManager groups;
    private final GroupProgress progress;

    BrokerConsumeStatsProcessor(String brokerAddr, TopicConfigManager topics, SubscriptionGroupManager groups,
        GroupProgress progress) {
        this.brokerAddr = brokerAddr;
        this.topics = topics;
        this.groups = groups;
        this.progress = progress;
    }

    /** The processor of a broker; {@code progress} comes from {@link ConsumerAdminProcessor#progress()}. */
    public static BrokerConsumeStatsProcessor of(String brokerAddr, TopicConfigManager topics,
        SubscriptionGroupManager groups, ConsumerAdminProcessor consumerAdmin) {
        return new BrokerConsumeStatsProcessor(brokerAddr, topics, groups, consumerAdmin.progress());
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        boolean orderOnly = new RequestFields(request).bool("isOrder", false);
        List<Map.Entry<String, List<ConsumeStats>>> perGroup = new ArrayList<>();
        long totalDiff = 0;
        long totalInflightDiff = 0;
        for (String group : groups.snapshot().subscriptionGroupTable().keySet()) {
            List<ConsumeStats> stats = new ArrayList<>();
            for (String topic : progress.topicsOf(group)) {
                TopicConfig config = topics.get(topic);
                if (config == null || orderOnly && !config.order() || !progress.consumes(group, topic)) {
                    continue;
                }
                ConsumeStats topicStats = new ConsumeStats(progress.queues(group, topic, config.writeQueueNums()),
                    progress.consumeTps(group, topic));
                totalDiff += topicStats.totalDiff();
                totalInflightDiff += topicStats.inflightDiff();
                stats.add(topicStats);
            }
            perGroup.add(new AbstractMap.SimpleImmutableEntry<>(group, stats));
        }
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(new ConsumeStatsList(brokerAddr, perGroup, totalDiff, totalInflightDiff).encode());
        return CompletableFuture.completedFuture(response);
    }
}
