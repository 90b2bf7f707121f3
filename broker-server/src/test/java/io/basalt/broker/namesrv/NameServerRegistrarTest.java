package io.basalt.broker.namesrv;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.broker.protocol.DataVersion;
import io.basalt.broker.protocol.TopicConfigSerializeWrapper;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.remoting.netty.NettyClientConfig;
import io.basalt.remoting.netty.NettyRemotingClient;
import io.basalt.remoting.netty.NettyRemotingServer;
import io.basalt.remoting.netty.NettyServerConfig;
import io.basalt.remoting.processor.RequestExecutor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.rocketmq.common.MQVersion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The registrar against a fake NameServer on loopback: what it records is checked with RocketMQ
 * 5.2.0's own {@code RegisterBrokerBody} decoder and CRC rule.
 */
class NameServerRegistrarTest {
    private static final BrokerRegistration BROKER =
        new BrokerRegistration("DefaultCluster", "broker-a", 0, "127.0.0.1:10911", "127.0.0.1:10912");

    private final ConcurrentLinkedQueue<RemotingCommand> received = new ConcurrentLinkedQueue<>();
    private final AtomicReference<Map<String, TopicConfig>> topics = new AtomicReference<>();
    private final AtomicLong version = new AtomicLong(7);
    private final List<NameServerRegistrar> registrars = new ArrayList<>();
    private NettyRemotingServer nameServer;
    private RequestExecutor executor;
    private String address;

    @BeforeEach
    void startFakeNameServer() {
        nameServer = new NettyRemotingServer(new NettyServerConfig("127.0.0.1", 0, 1, 1 << 20, 0, 1_000, true));
        executor = RequestExecutor.create("FakeNameServerThread_", 1, 64, 0);
        nameServer.registerProcessor(RequestCode.REGISTER_BROKER, (ctx, request) -> answer(request), executor);
        nameServer.registerProcessor(RequestCode.UNREGISTER_BROKER, (ctx, request) -> answer(request), executor);
        nameServer.start();
        address = "127.0.0.1:" + nameServer.localPort();
        Map<String, TopicConfig> table = new LinkedHashMap<>();
        table.put("TBW102", TopicConfig.of("TBW102", 4, 7));
        table.put("TopicA", TopicConfig.of("TopicA", 2, 6));
        topics.set(table);
    }

    private CompletableFuture<RemotingCommand> answer(RemotingCommand request) {
        received.add(request);
        return CompletableFuture.completedFuture(RemotingCommand.response(ResponseCode.SUCCESS, null));
    }

    @AfterEach
    void stop() throws InterruptedException {
        registrars.forEach(NameServerRegistrar::shutdown);
        nameServer.shutdown();
        executor.shutdown(5_000);
    }

    private NameServerRegistrar registrar(List<String> nameServers) {
        NameServerRegistrar r = new NameServerRegistrar(nameServers, BROKER,
            () -> new TopicConfigSerializeWrapper(topics.get(), new DataVersion(0, 1_700_000_000_000L, version.get())),
            version::get, new NettyRemotingClient(NettyClientConfig.defaults()), 3_000);
        registrars.add(r);
        return r;
    }

    private static RemotingCommand only(List<RemotingCommand> commands, int code) {
        List<RemotingCommand> matching = commands.stream().filter(c -> c.code() == code).toList();
        assertEquals(1, matching.size(), "requests of code " + code);
        return matching.get(0);
    }

    @Test
    void registrationCarriesRocketMqHeaderAndABodyTheNameServerDecodes() throws Exception {
        assertEquals(1, registrar(List.of(address)).registerAll());
        RemotingCommand request = only(new ArrayList<>(received), RequestCode.REGISTER_BROKER);
        Map<String, String> header = request.extFields();
        assertEquals("broker-a", header.get("brokerName"));
        assertEquals("127.0.0.1:10911", header.get("brokerAddr"));
        assertEquals("DefaultCluster", header.get("clusterName"));
        assertEquals("127.0.0.1:10912", header.get("haServerAddr"));
        assertEquals("0", header.get("brokerId"));
        assertEquals("false", header.get("compressed"));
        assertEquals("false", header.get("enableActingMaster"));
        assertNull(header.get("heartbeatTimeoutMillis"));
        assertEquals(org.apache.rocketmq.common.UtilAll.crc32(request.body()), Integer.parseInt(header.get("bodyCrc32")));

        var body = org.apache.rocketmq.remoting.protocol.body.RegisterBrokerBody.decode(request.body(), false,
            MQVersion.Version.V5_2_0);
        var table = body.getTopicConfigSerializeWrapper().getTopicConfigTable();
        assertEquals(2, table.size());
        assertEquals(2, table.get("TopicA").getWriteQueueNums());
        assertEquals(7, table.get("TBW102").getPerm());
        assertEquals(7, body.getTopicConfigSerializeWrapper().getDataVersion().getCounter().get());
        assertTrue(body.getFilterServerList().isEmpty());
    }

    @Test
    void aOneTopicTableFollowsAnAddressOnlyRegistration() throws Exception {
        topics.set(Map.of("TBW102", TopicConfig.of("TBW102", 4, 7)));
        assertEquals(1, registrar(List.of(address)).registerAll());
        List<RemotingCommand> requests = new ArrayList<>(received);
        assertEquals(2, requests.size());
        var first = org.apache.rocketmq.remoting.protocol.body.RegisterBrokerBody.decode(requests.get(0).body(), false,
            MQVersion.Version.V5_2_0);
        var second = org.apache.rocketmq.remoting.protocol.body.RegisterBrokerBody.decode(requests.get(1).body(), false,
            MQVersion.Version.V5_2_0);
        assertTrue(first.getTopicConfigSerializeWrapper().getTopicConfigTable().isEmpty());
        assertEquals(Map.of("TBW102", 4), Map.of("TBW102",
            second.getTopicConfigSerializeWrapper().getTopicConfigTable().get("TBW102").getWriteQueueNums()));
    }

    @Test
    void aDeadNameServerDoesNotHoldUpTheOthers() throws Exception {
        String dead;
        try (ServerSocket s = new ServerSocket(0)) {
            dead = "127.0.0.1:" + s.getLocalPort();
        }
        assertEquals(1, registrar(List.of(dead, address)).registerAll());
        only(new ArrayList<>(received), RequestCode.REGISTER_BROKER);
    }

    @Test
    void registersAtStartAndAfterATopicChangeThenUnregistersOnShutdown() {
        NameServerRegistrar r = registrar(List.of(address));
        r.start(60_000);
        await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 1);
        assertEquals(0, r.registerIfTopicsChanged());

        Map<String, TopicConfig> more = new LinkedHashMap<>(topics.get());
        more.put("TopicB", TopicConfig.of("TopicB", 1, 6));
        topics.set(more);
        version.incrementAndGet();
        // within a second, long before the 60 s period
        await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 2);

        r.shutdown();
        r.shutdown();
        RemotingCommand unregister = only(new ArrayList<>(received), RequestCode.UNREGISTER_BROKER);
        assertEquals("broker-a", unregister.extFields().get("brokerName"));
        assertEquals("127.0.0.1:10911", unregister.extFields().get("brokerAddr"));
        assertEquals("DefaultCluster", unregister.extFields().get("clusterName"));
        assertEquals("0", unregister.extFields().get("brokerId"));
        assertEquals(3, received.size());
    }

    @Test
    void aFailingTopicTableDoesNotStopTheRegistrations() {
        AtomicLong calls = new AtomicLong();
        NameServerRegistrar r = new NameServerRegistrar(List.of(address), BROKER, () -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("table not readable");
            }
            return new TopicConfigSerializeWrapper(topics.get(), new DataVersion(0, 0, version.get()));
        }, version::get, new NettyRemotingClient(NettyClientConfig.defaults()), 3_000);
        registrars.add(r);
        r.start(60_000);
        // the first (periodic) registration fails; the change watch registers within a second
        await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 1);
    }

    @Test
    void noNameServerIsAnError() {
        assertThrows(IllegalArgumentException.class, () -> new NameServerRegistrar(List.of(), BROKER,
            () -> null, () -> 0, null, 1_000));
    }

    @Test
    void crcIsRocketMqs() throws IOException {
        byte[] bytes = "{\"filterServerList\":[]}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(org.apache.rocketmq.common.UtilAll.crc32(bytes), NameServerRegistrar.crc32(bytes));
    }
}
