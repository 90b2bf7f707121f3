package io.basalt.it.security;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

import org.apache.rocketmq.remoting.protocol.body.ClusterInfo;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerHandle;
import io.basalt.it.RocketMqNameServer;

/**
 * The broker registers with its NameServers over TLS when {@code useTLS=true}: the real RocketMQ 5.2.0 NameServer
 * sits behind a listener that takes TLS only, so a registration that arrives was encrypted, and a broker without
 * {@code useTLS} (the control) is refused by the listener and never registered.
 */
@LeakCheckExtension.AllowThreads(value = RocketMqNameServer.LEFT_RUNNING,
    because = "the official 5.2.0 NettyRemotingServer.shutdown(), which NamesrvController.shutdown() calls, leaves its"
        + " scheduler thread running")
class NameServerTlsTest {
    @TempDir
    Path dir;

    private static Set<String> brokersOf(DefaultMQAdminExt admin) throws Exception {
        ClusterInfo cluster = admin.examineBrokerClusterInfo();
        Set<String> members = cluster.getClusterAddrTable().get("DefaultCluster");
        return members == null ? Set.of() : members;
    }

    @Test
    void aBrokerWithUseTlsRegistersThroughATlsOnlyListener() throws Exception {
        try (RocketMqNameServer nameServer = RocketMqNameServer.start(dir);
             TlsOnlyProxy tlsOnly = new TlsOnlyProxy(nameServer.address())) {
            DefaultMQAdminExt admin = new DefaultMQAdminExt(5000);
            admin.setNamesrvAddr(nameServer.address());
            admin.setInstanceName("ns-tls-admin-" + System.nanoTime());
            admin.start();
            try (BrokerHandle plain = BrokerHandle.start(dir.resolve("plain"),
                     Map.of("namesrvAddr", tlsOnly.address(), "brokerName", "broker-plain"));
                 BrokerHandle tls = BrokerHandle.start(dir.resolve("tls"),
                     Map.of("namesrvAddr", tlsOnly.address(), "brokerName", "broker-tls", "useTLS", "true"))) {
                await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .until(() -> brokersOf(admin).contains("broker-tls"));
                String master = admin.examineBrokerClusterInfo().getBrokerAddrTable().get("broker-tls")
                    .getBrokerAddrs().get(0L);
                assertEquals(tls.address(), master);

                // the plaintext broker tried (its handshake failed at the listener) and is not registered
                await().atMost(Duration.ofSeconds(30)).until(() -> tlsOnly.refusedHandshakes() > 0);
                assertFalse(brokersOf(admin).contains("broker-plain"), brokersOf(admin).toString());
            } finally {
                admin.shutdown();
            }
        }
    }
}
