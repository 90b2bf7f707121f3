package io.basalt.broker.slave;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import io.basalt.broker.BrokerController;
import io.basalt.broker.config.BrokerConfiguration;
import io.basalt.broker.protocol.ConsumerOffsetSerializeWrapper;
import io.basalt.broker.protocol.DataVersion;
import io.basalt.broker.protocol.TopicConfigSerializeWrapper;
import io.basalt.broker.subscription.SubscriptionGroupConfig;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.remoting.netty.NettyClientConfig;
import io.basalt.remoting.netty.NettyRemotingClient;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A master and its slave in this JVM (no NameServer: the slave learns the master's address from the HA handshake).
 * The slave copies the master's topics (deleting what the master deleted), groups, committed offsets, delay offsets
 * and request modes into its own tables and files; a promotion stops the copy and keeps what it had.
 */
class SlaveSynchronizeTest {
    @TempDir
    Path dir;
    private BrokerController master;
    private BrokerController slave;
    private NettyRemotingClient client;

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        if (slave != null) {
            slave.shutdown();
        }
        if (master != null) {
            master.shutdown();
        }
    }

    private static BrokerConfiguration config(Path root, Map<String, String> extra) throws Exception {
        Map<String, String> properties = new java.util.HashMap<>(Map.of("listenPort", "0", "haListenPort", "0",
            "metricsPort", "0", "bindAddress", "127.0.0.1", "brokerIP1", "127.0.0.1", "storePathRootDir", root.toString(),
            "mappedFileSizeCommitLog", Integer.toString(1 << 20), "warmMapedFileEnable", "false"));
        properties.putAll(extra);
        return BrokerConfiguration.of(properties);
    }

    private void startPair() throws Exception {
        startPair(true);
    }

    private void startPair(boolean withDelayOffsets) throws Exception {
        master = BrokerController.create(config(dir.resolve("master"), Map.of()));
        if (withDelayOffsets) {
            // a table the master got from a RocketMQ store: the slave copies the master's answer byte for byte
            Files.createDirectories(dir.resolve("master/config"));
            Files.writeString(dir.resolve("master/config/delayOffset.json"), "{\"offsetTable\":{1:12,3:4}}");
        }
        master.start();
        slave = BrokerController.create(config(dir.resolve("slave"), Map.of("brokerRole", "SLAVE", "brokerId", "1",
            "haMasterAddress", "127.0.0.1:" + master.configuration().ha().haListenPort())));
        slave.start();
        client = new NettyRemotingClient(NettyClientConfig.defaults());
    }

    @Test
    void theSlaveCopiesTheMastersTablesAndFilesAndDropsTopicsTheMasterDeleted() throws Exception {
        startPair();
        master.topics().createOrUpdate(TopicConfig.of("Synced", 4, 6));
        master.topics().createOrUpdate(TopicConfig.of("Doomed", 2, 6));
        master.subscriptionGroups().createOrUpdate(SubscriptionGroupConfig.defaults("cg-synced"));
        master.offsets().commitOffset(null, "cg-synced", "Synced", 2, 17);

        await().atMost(ofSeconds(20)).until(() -> slave.topics().get("Synced") != null
            && slave.topics().get("Doomed") != null && slave.subscriptionGroups().get("cg-synced").isPresent()
            && slave.offsets().queryOffset("cg-synced", "Synced", 2) == 17);
        assertEquals(master.topics().dataVersion(), slave.topics().dataVersion(), "the slave took the master's version");
        assertEquals(master.subscriptionGroups().dataVersion(), slave.subscriptionGroups().dataVersion());
        Path slaveConfig = dir.resolve("slave/config");
        RemotingCommand delayOffsets = client.invokeSync("127.0.0.1:" + master.listenPort(),
            RemotingCommand.request(RequestCode.GET_ALL_DELAY_OFFSET), 5000);
        assertEquals(ResponseCode.SUCCESS, delayOffsets.code(), delayOffsets.remark());
        // one sync round updates each table, then writes its file: the files follow within the round
        await().atMost(ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
            assertTrue(Files.readString(slaveConfig.resolve("topics.json")).contains("\"Synced\""), "persisted");
            assertTrue(Files.readString(slaveConfig.resolve("subscriptionGroup.json")).contains("\"cg-synced\""));
            assertTrue(Files.readString(slaveConfig.resolve("consumerOffset.json")).contains("Synced@cg-synced"));
            assertArrayEquals(delayOffsets.body(), Files.readAllBytes(slaveConfig.resolve("delayOffset.json")),
                "the master's body, as it came");
            assertEquals("{\"messageRequestModeMap\":{}}", Files.readString(slaveConfig.resolve("messageRequestMode.json")));
        });

        master.topics().delete("Doomed");
        await().atMost(ofSeconds(20)).until(() -> slave.topics().get("Doomed") == null);
        assertTrue(slave.topics().get("Synced") != null);
    }

    @Test
    void theMasterAnswersTheSlavesRequestsOnItsListenAndFastPorts() throws Exception {
        startPair(false);
        master.offsets().commitOffset(null, "cg", "T", 0, 10);
        String listen = "127.0.0.1:" + master.listenPort();
        assertEquals(master.listenPort() - 2, master.fastListenPort(), "RocketMQ's VIP port");

        RemotingCommand topics = client.invokeSync("127.0.0.1:" + master.fastListenPort(),
            RemotingCommand.request(RequestCode.GET_ALL_TOPIC_CONFIG), 5000);
        assertEquals(ResponseCode.SUCCESS, topics.code());
        assertEquals(master.topics().dataVersion(), TopicConfigSerializeWrapper.decode(topics.body()).dataVersion());

        RemotingCommand offsets = client.invokeSync(listen, RemotingCommand.request(RequestCode.GET_ALL_CONSUMER_OFFSET), 5000);
        assertEquals(ResponseCode.SUCCESS, offsets.code());
        String body = new String(offsets.body(), StandardCharsets.UTF_8);
        assertTrue(body.contains("\"offsetTable\":{\"T@cg\":{0:10}}"), "queue ids unquoted as fastjson writes them: " + body);
        assertEquals(Map.of("T@cg", Map.of(0, 10L)),
            ConsumerOffsetSerializeWrapper.decode(offsets.body(), new DataVersion(0, 0, 0)).offsetTable());

        RemotingCommand modes = client.invokeSync(listen, RemotingCommand.request(RequestCode.GET_ALL_MESSAGE_REQUEST_MODE), 5000);
        assertEquals(ResponseCode.SUCCESS, modes.code());
        assertEquals("{\"messageRequestModeMap\":{}}", new String(modes.body(), StandardCharsets.UTF_8));

        RemotingCommand delay = client.invokeSync(listen, RemotingCommand.request(RequestCode.GET_ALL_DELAY_OFFSET), 5000);
        // an empty table, as RocketMQ's running broker answers it (its slaves log an error for SYSTEM_ERROR)
        assertEquals(ResponseCode.SUCCESS, delay.code(), delay.remark());
        assertTrue(new String(delay.body(), StandardCharsets.UTF_8).endsWith("\"offsetTable\":{}}"),
            new String(delay.body(), StandardCharsets.UTF_8));
    }

    @Test
    void aPromotedSlaveStopsCopyingKeepsWhatItHasAndStartsTheEpochsTopicVersion() throws Exception {
        startPair();
        master.topics().createOrUpdate(TopicConfig.of("BeforePromotion", 4, 6));
        master.offsets().commitOffset(null, "cg", "BeforePromotion", 1, 5);
        // the back-check's place in the half and op queues, which a promoted slave goes on from
        master.offsets().commitOffset(null, "CID_RMQ_SYS_TRANS", "RMQ_SYS_TRANS_HALF_TOPIC", 0, 42);
        master.offsets().commitOffset(null, "CID_RMQ_SYS_TRANS", "RMQ_SYS_TRANS_OP_HALF_TOPIC", 0, 7);
        await().atMost(ofSeconds(20)).until(() -> slave.topics().get("BeforePromotion") != null
            && slave.offsets().queryOffset("cg", "BeforePromotion", 1) == 5
            && slave.offsets().queryOffset("CID_RMQ_SYS_TRANS", "RMQ_SYS_TRANS_HALF_TOPIC", 0) == 42
            && slave.offsets().queryOffset("CID_RMQ_SYS_TRANS", "RMQ_SYS_TRANS_OP_HALF_TOPIC", 0) == 7);
        // the slave follows epoch 1 once it streams
        await().atMost(ofSeconds(20)).until(() -> slave.replication().masterStreaming());
        // the delay offsets the slave copied from its master (the master corrected them into its empty queues)
        await().atMost(ofSeconds(20)).until(() -> Files.exists(dir.resolve("slave/config/delayOffset.json")));
        assertTrue(master.schedule().isStarted(), "a master delivers delay levels");
        assertTrue(!slave.schedule().isStarted(), "a slave does not");
        await().atMost(ofSeconds(10)).until(() -> master.transactionCheckService().isRunning());
        assertTrue(!slave.transactionCheckService().isRunning(), "a slave does not check transactions");

        RemotingCommand promote = RemotingCommand.request(10101);
        promote.putExtField("role", "ASYNC_MASTER");
        promote.putExtField("expectedEpoch", Long.toString(slave.replication().epoch()));
        RemotingCommand answer = client.invokeSync("127.0.0.1:" + slave.listenPort(), promote, 10_000);
        assertEquals(ResponseCode.SUCCESS, answer.code(), answer.remark());

        assertTrue(slave.slaveSynchronize().orElseThrow().isStopped(), "no more copies once promoted");
        assertEquals(slave.replication().epoch(), slave.topics().dataVersion().stateVersion(), "the new epoch's version");
        assertTrue(slave.topics().get("BeforePromotion") != null);
        assertEquals(5, slave.offsets().queryOffset("cg", "BeforePromotion", 1));
        assertNull(master.slaveSynchronize().orElse(null), "a master has no sync");
        assertTrue(slave.schedule().isStarted(), "promoted, it delivers delay levels");
        await().atMost(ofSeconds(10)).until(() -> slave.transactionCheckService().isRunning());
        assertEquals(42, slave.offsets().queryOffset("CID_RMQ_SYS_TRANS", "RMQ_SYS_TRANS_HALF_TOPIC", 0),
            "the back-check goes on where the master was");
        await().atMost(ofSeconds(20)).until(() -> !master.replication().acceptsWrites());
        await().atMost(ofSeconds(10)).until(() -> !master.transactionCheckService().isRunning());
        assertEquals(Map.of("scheduleMessageOffset_1", "0,0", "scheduleMessageOffset_3", "0,0"),
            slave.schedule().runtimeInfo(), "from the offsets it copied");
    }
}
