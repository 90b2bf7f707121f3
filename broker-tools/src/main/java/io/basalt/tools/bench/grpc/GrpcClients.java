package io.basalt.tools.bench.grpc;

import java.time.Duration;
import java.util.Map;

import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientException;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.MessageListener;
import org.apache.rocketmq.client.apis.consumer.PushConsumer;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.Message;
import org.apache.rocketmq.client.apis.producer.Producer;

/** The official 5.x SDK's producers and consumers, all built the same way for every broker under test. */
final class GrpcClients {
    /** The SDK's default request timeout is 3 s; a loaded two-core machine can stall longer than that. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private final ClientServiceProvider provider = ClientServiceProvider.loadService();
    private final ClientConfiguration configuration;

    GrpcClients(String endpoint, boolean tls) {
        this.configuration = ClientConfiguration.newBuilder().setEndpoints(endpoint).enableSsl(tls)
            .setRequestTimeout(REQUEST_TIMEOUT).build();
    }

    Producer producer(String topic) throws ClientException {
        return provider.newProducerBuilder().setClientConfiguration(configuration).setTopics(topic).build();
    }

    Message message(String topic, byte[] body) {
        return provider.newMessageBuilder().setTopic(topic).setTag("bench").setBody(body).build();
    }

    SimpleConsumer simpleConsumer(String group, String topic, Duration await) throws ClientException {
        return provider.newSimpleConsumerBuilder().setClientConfiguration(configuration).setConsumerGroup(group)
            .setAwaitDuration(await).setSubscriptionExpressions(Map.of(topic, FilterExpression.SUB_ALL)).build();
    }

    PushConsumer pushConsumer(String group, String topic, int threads, MessageListener listener) throws ClientException {
        return provider.newPushConsumerBuilder().setClientConfiguration(configuration).setConsumerGroup(group)
            .setSubscriptionExpressions(Map.of(topic, FilterExpression.SUB_ALL)).setConsumptionThreadCount(threads)
            .setMessageListener(listener).build();
    }
}
