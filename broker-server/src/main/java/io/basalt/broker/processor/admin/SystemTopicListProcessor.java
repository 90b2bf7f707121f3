package io.basalt.broker.processor.admin;

import io.basalt.broker.protocol.TopicList;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * GET_SYSTEM_TOPIC_LIST_FROM_BROKER: the broker's system topics (RocketMQ's {@code TopicValidator.getSystemTopicSet()}
 * as its broker fills it): the reserved names, those created at start included, and every {@code rmq_sys_} topic
 * the broker has, and {@code BenchmarkTest} (in RocketMQ's set though Basalt does not reserve it: tools that list
 * "user" topics leave it out, as they do against RocketMQ). No {@code brokerAddr}, as in RocketMQ. Safe for
 * concurrent calls.
 */
public final class SystemTopicListProcessor implements RequestProcessor {
    static final String BENCHMARK_TOPIC = "BenchmarkTest";

    private final TopicConfigManager topics;

    public SystemTopicListProcessor(TopicConfigManager topics) {
        this.topics = topics;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        Set<String> names = new TreeSet<>(topics.systemTopics().reservedNames());
        names.add(BENCHMARK_TOPIC);
        for (TopicConfig config : topics.all()) {
            if (topics.systemTopics().isSystemTopic(config.topicName())) {
                names.add(config.topicName());
            }
        }
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(new TopicList(names, null).encode());
        return CompletableFuture.completedFuture(response);
    }
}
