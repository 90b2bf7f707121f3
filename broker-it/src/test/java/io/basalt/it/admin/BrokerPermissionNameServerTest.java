package io.basalt.it.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerHandle;
import io.basalt.it.MqAdmin;
import io.basalt.it.RocketMqNameServer;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code updateBrokerConfig brokerPermission} against a Basalt broker registered with the real RocketMQ 5.2.0
 * NameServer: the broker re-registers at once with every topic's perm masked, so the NameServer's routes show it
 * read-only, and full again when the permission is restored (no wait for the 30 s registration period).
 */
@LeakCheckExtension.AllowThreads(value = RocketMqNameServer.LEFT_RUNNING,
    because = "the official 5.2.0 NettyRemotingServer.shutdown(), which NamesrvController.shutdown() calls, leaves its"
        + " scheduler thread running")
class BrokerPermissionNameServerTest {
    @TempDir
    Path dir;

    @Test
    void theNameServersRoutesFollowBrokerPermissionAtOnce() throws Exception {
        try (RocketMqNameServer nameServer = RocketMqNameServer.start(dir);
             BrokerHandle broker = BrokerHandle.start(dir.resolve("broker"), Map.of("namesrvAddr", nameServer.address()))) {
            DefaultMQAdminExt admin = AdminClients.admin(nameServer.address());
            try {
                MqAdmin.run("updateTopic", "-n", nameServer.address(), "-b", broker.address(), "-t", "PermNsTopic");
                assertEquals(6, perm(admin, "PermNsTopic"));

                Properties readOnly = new Properties();
                readOnly.setProperty("brokerPermission", "4");
                admin.updateBrokerConfig(broker.address(), readOnly);
                assertEquals(4, perm(admin, "PermNsTopic"));

                Properties full = new Properties();
                full.setProperty("brokerPermission", "6");
                admin.updateBrokerConfig(broker.address(), full);
                assertEquals(6, perm(admin, "PermNsTopic"));
            } finally {
                admin.shutdown();
            }
        }
    }

    private static int perm(DefaultMQAdminExt admin, String topic) throws Exception {
        return admin.examineTopicRouteInfo(topic).getQueueDatas().get(0).getPerm();
    }
}
