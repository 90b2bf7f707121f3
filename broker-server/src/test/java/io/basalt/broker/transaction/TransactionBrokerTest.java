package io.basalt.broker.transaction;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import io.basalt.broker.BrokerController;
import io.basalt.broker.config.BrokerConfiguration;
import io.basalt.remoting.netty.NettyClientConfig;
import io.basalt.remoting.netty.NettyRemotingClient;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.StoredMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transaction parts as the broker wires them: a half send over the wire, END_TRANSACTION one-way and two-way on
 * its executor, the runtime-info keys, and at shutdown the pending op markers and config/transactionMetrics written.
 */
class TransactionBrokerTest {
    @TempDir
    Path dir;
    private BrokerController broker;
    private NettyRemotingClient client;

    private String start() throws Exception {
        broker = BrokerController.create(BrokerConfiguration.of(Map.of("listenPort", "0", "haListenPort", "0",
            "metricsPort", "0", "bindAddress", "127.0.0.1", "brokerIP1", "127.0.0.1", "storePathRootDir", dir.toString(),
            "mappedFileSizeCommitLog", Integer.toString(1 << 20), "warmMapedFileEnable", "false",
            "transactionOpBatchInterval", "600000")));
        broker.start();
        client = new NettyRemotingClient(NettyClientConfig.defaults());
        return "127.0.0.1:" + broker.listenPort();
    }

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        if (broker != null) {
            broker.shutdown();
        }
    }

    private RemotingCommand halfSend(String address, String uniqKey) throws Exception {
        RemotingCommand send = HalfMessageSendTest.halfSend(HalfMessageSendTest.CLIENT_PROPERTIES.replace("U-1", uniqKey), 1);
        RemotingCommand response = client.invokeSync(address, send, 5000);
        assertEquals(ResponseCode.SUCCESS, response.code(), response.remark());
        return response;
    }

    private StoredMessage halfOf(RemotingCommand sendResponse) {
        return broker.store().viewMessageById(sendResponse.extFields().get("msgId"));
    }

    @Test
    void aTransactionIsCommittedOneWayAndRolledBackTwoWayThroughTheBroker() throws Exception {
        String address = start();
        StoredMessage toCommit = halfOf(halfSend(address, "TX-1"));
        StoredMessage toRollBack = halfOf(halfSend(address, "TX-2"));
        assertEquals(Long.valueOf(2), broker.transactionMetrics().pendingByTopic().get("T"));

        client.invokeOneway(address, EndTransactionProcessorTest.end(toCommit, 8, false), 5000).get();
        RemotingCommand twoWay = EndTransactionProcessorTest.end(toRollBack, 12, false);
        twoWay.setFlag(0);
        RemotingCommand rolledBack = client.invokeSync(address, twoWay, 5000);

        assertEquals(ResponseCode.SUCCESS, rolledBack.code(), rolledBack.remark());
        await().atMost(ofSeconds(10)).until(() -> broker.store().getMaxOffsetInQueue("T", 1) == 1);
        StoredMessage committed = broker.store().lookMessageByOffset(broker.store().getCommitLogOffsetInQueue("T", 1, 0));
        assertEquals("TX-1", committed.property("UNIQ_KEY"));
        assertTrue(broker.transactionDecisions().isMarkedDone(toCommit.queueOffset()));
        assertTrue(broker.transactionDecisions().isMarkedDone(toRollBack.queueOffset()));
        assertEquals(1, broker.transactionCounters().byTopic().get("T").committed());
        assertEquals(1, broker.transactionCounters().byTopic().get("T").rolledBack());
        assertEquals(2, broker.transactionCounters().byTopic().get("T").prepared());

        RemotingCommand info = client.invokeSync(address, RemotingCommand.request(RequestCode.GET_BROKER_RUNTIME_INFO), 5000);
        String table = new String(info.body(), StandardCharsets.UTF_8);
        assertTrue(table.contains("\"EndTransactionQueueSize\":\"0\""), table);
        assertTrue(table.contains("\"EndTransactionThreadPoolQueueCapacity\":\"100000\""), table);

        broker.shutdown();
        assertEquals(0, io.basalt.broker.JsonConfigFile.MAPPER.readTree(Files.readAllBytes(dir.resolve("config")
            .resolve("transactionMetrics"))).path("transactionCount").path("T").path("count").asLong(-1));
        broker = BrokerController.create(BrokerConfiguration.of(Map.of("listenPort", "0", "haListenPort", "0",
            "metricsPort", "0", "bindAddress", "127.0.0.1", "brokerIP1", "127.0.0.1", "storePathRootDir", dir.toString(),
            "mappedFileSizeCommitLog", Integer.toString(1 << 20), "warmMapedFileEnable", "false")));
        broker.start();
        assertEquals(1, broker.store().getMaxOffsetInQueue(TransactionalMessages.OP_HALF_TOPIC, 0),
            "the pending markers were written at shutdown, in one marker");
        StoredMessage marker = broker.store().lookMessageByOffset(
            broker.store().getCommitLogOffsetInQueue(TransactionalMessages.OP_HALF_TOPIC, 0, 0));
        // the two END_TRANSACTIONs run on the broker's pool in either order; RocketMQ reads the offsets as a set
        String offsets = new String(marker.body(), StandardCharsets.US_ASCII);
        assertTrue(offsets.endsWith(","), offsets);
        assertEquals(java.util.Set.of(Long.toString(toCommit.queueOffset()), Long.toString(toRollBack.queueOffset())),
            java.util.Set.of(offsets.split(",")), offsets);
        assertEquals(2, offsets.split(",").length, "each offset once: " + offsets);
        assertEquals(Long.valueOf(0), broker.transactionMetrics().pendingByTopic().get("T"));
    }
}
