package io.basalt.it.grpc;

import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/**
 * A broker process and an official admin client for the 5.x SDK tests: topics created with their message type through
 * mqadmin's API and waited for, and the SDK's client configuration for the broker's gRPC port. Closing it stops both.
 */
final class GrpcBroker implements AutoCloseable {
    final BrokerProcess process;
    final DefaultMQAdminExt admin;

    private GrpcBroker(BrokerProcess process, DefaultMQAdminExt admin) {
        this.process = process;
        this.admin = admin;
    }

    /** Starts a broker in {@code dir} with {@code conf} added to its broker.conf, and an admin client of it. */
    static GrpcBroker start(Path dir, Map<String, String> conf) throws Exception {
        BrokerProcess process = BrokerProcess.create(dir, conf);
        process.start();
        DefaultMQAdminExt admin = new DefaultMQAdminExt(10_000);
        admin.setNamesrvAddr(process.address());
        admin.setInstanceName(Clients.instanceName());
        try {
            admin.start();
        } catch (Exception | Error e) {
            process.close();
            throw e;
        }
        return new GrpcBroker(process, admin);
    }

    /** Creates {@code topic} with {@code queues} queues of {@code messageType} and waits until the broker has it so. */
    void createTopic(String topic, int queues, String messageType) throws Exception {
        admin.createTopic("DefaultCluster", topic, queues, Map.of("+message.type", messageType));
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> messageType.equals(
            admin.examineTopicConfig(process.address(), topic).getAttributes().get("message.type")));
    }

    /** The SDK's configuration for this broker's gRPC port, TLS or plaintext, with a 10 s request timeout. */
    ClientConfiguration configuration(boolean tls) {
        return ClientConfiguration.newBuilder().setEndpoints(process.grpcAddress()).enableSsl(tls)
            .setRequestTimeout(Duration.ofSeconds(10)).build();
    }

    @Override
    public void close() throws Exception {
        try {
            admin.shutdown();
        } finally {
            process.close();
        }
    }
}
