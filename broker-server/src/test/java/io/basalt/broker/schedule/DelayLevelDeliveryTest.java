package io.basalt.broker.schedule;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.broker.BrokerController;
import io.basalt.broker.config.BrokerConfiguration;
import io.basalt.broker.processor.SendRequests;
import io.basalt.remoting.netty.NettyClientConfig;
import io.basalt.remoting.netty.NettyRemotingClient;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.MessageStore;
import io.basalt.store.QueueEntry;
import io.basalt.store.StoredMessage;

/**
 * A message sent with a delay level through a broker: stored in SCHEDULE_TOPIC_XXXX (the send response says so),
 * delivered into its real topic no earlier than its level's delay, with RocketMQ's properties; its progress in
 * delayOffset.json and GET_ALL_DELAY_OFFSET.
 */
class DelayLevelDeliveryTest {
    @TempDir
    Path dir;

    private BrokerController broker;
    private NettyRemotingClient client;

    private void start() throws Exception {
        broker = BrokerController.create(BrokerConfiguration.of(Map.of("listenPort", "0", "haListenPort", "0",
            "metricsPort", "0", "bindAddress", "127.0.0.1", "brokerIP1", "127.0.0.1", "storePathRootDir", dir.toString(),
            "mappedFileSizeCommitLog", Integer.toString(1 << 20), "warmMapedFileEnable", "false",
            "messageDelayLevel", "1s 2s 3s")));
        broker.start();
        client = new NettyRemotingClient(NettyClientConfig.defaults());
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

    @Test
    void aBatchWithADelayLevelIsRefusedAsRocketMqRefusesIt() throws Exception {
        start();
        String address = "127.0.0.1:" + broker.listenPort();
        byte[] body = org.apache.rocketmq.common.message.MessageDecoder.encodeMessages(java.util.List.of(
            new org.apache.rocketmq.common.message.Message("T", "a".getBytes(StandardCharsets.UTF_8)),
            new org.apache.rocketmq.common.message.Message("T", "b".getBytes(StandardCharsets.UTF_8))));
        RemotingCommand delayed = SendRequests.sendV2("T", "DELAY\u00012\u0002", body);
        RemotingCommand batch = RemotingCommand.request(RequestCode.SEND_BATCH_MESSAGE);
        delayed.extFields().forEach(batch::putExtField);
        batch.setBody(body);
        RemotingCommand refused = client.invokeSync(address, batch, 5000);
        assertEquals(ResponseCode.MESSAGE_ILLEGAL, refused.code(), refused.remark());
        assertTrue(refused.remark().contains("batch"), refused.remark());
        assertEquals(0, broker.store().getMaxOffsetInQueue("SCHEDULE_TOPIC_XXXX", 1), "nothing stored");

        batch.putExtField("i", "");
        RemotingCommand plain = client.invokeSync(address, batch, 5000);
        assertEquals(ResponseCode.SUCCESS, plain.code(), plain.remark());
    }

    @Test
    void aDelayedMessageWaitsInItsLevelsQueueAndIsDeliveredWhenDue() throws Exception {
        start();
        String address = "127.0.0.1:" + broker.listenPort();
        RemotingCommand send = SendRequests.sendV2("T", "TAGS\u0001tagA\u0002DELAY\u00012\u0002",
            "hello".getBytes(StandardCharsets.UTF_8));
        send.putExtField("e", "1");
        RemotingCommand answer = client.invokeSync(address, send, 5000);
        assertEquals(ResponseCode.SUCCESS, answer.code(), answer.remark());
        assertEquals("1", answer.extFields().get("queueId"), "the queue the client asked for");
        assertEquals("0", answer.extFields().get("queueOffset"), "the offset in SCHEDULE_TOPIC_XXXX queue 1");

        MessageStore store = broker.store();
        await().atMost(ofSeconds(5)).until(() -> store.getMaxOffsetInQueue("SCHEDULE_TOPIC_XXXX", 1) == 1);
        QueueEntry entry = store.readQueueEntries("SCHEDULE_TOPIC_XXXX", 1, 0, 10).get(0);
        StoredMessage scheduled = store.lookMessageByOffset(entry.physicalOffset());
        assertEquals(scheduled.offsetMsgId(), answer.extFields().get("msgId"), "the id of the stored record");
        assertEquals(scheduled.storeTimestamp() + 2000, entry.tagsCode(), "deliver time as the tagsCode");
        assertEquals("T", scheduled.property("REAL_TOPIC"));
        assertEquals("1", scheduled.property("REAL_QID"));

        await().atMost(ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("T", 1) == 1);
        long physical = store.getCommitLogOffsetInQueue("T", 1, 0);
        StoredMessage delivered = store.lookMessageByOffset(physical);
        assertTrue(delivered.storeTimestamp() >= entry.tagsCode(), "not before it was due");
        assertEquals(scheduled.properties(), delivered.properties(), "the properties as the SCHEDULE record has them");
        assertEquals("hello", new String(delivered.body(), StandardCharsets.UTF_8));

        await().atMost(ofSeconds(5)).until(() -> Files.exists(dir.resolve("config/delayOffset.json"))
            && Files.readString(dir.resolve("config/delayOffset.json")).contains("2:1"));
        RemotingCommand offsets = client.invokeSync(address, RemotingCommand.request(RequestCode.GET_ALL_DELAY_OFFSET), 5000);
        assertEquals(ResponseCode.SUCCESS, offsets.code(), offsets.remark());
        assertTrue(new String(offsets.body(), StandardCharsets.UTF_8).contains("\"offsetTable\":{2:1}"),
            new String(offsets.body(), StandardCharsets.UTF_8));
    }
}
