package io.basalt.it.ha;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeaderV2;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;

/**
 * Master (SYNC_MASTER, SYNC_FLUSH) and slave as two broker processes; producers send with the
 * official client; the master is killed with SIGKILL mid-load; every acknowledged message is read
 * back from the slave; after promotion the slave accepts sends.
 */
class MasterFailoverTest {
    private static final int PROMOTE_TO_MASTER = 10101;
    private static final String TOPIC = "FailoverTopic";

    @TempDir
    Path dir;

    @Test
    void everyAcknowledgedMessageSurvivesKillNineAndThePromotedSlaveAcceptsSends() throws Exception {
        int masterHaPort = BrokerProcess.freePort();
        try (BrokerProcess master = BrokerProcess.create(dir.resolve("master"), Map.of("brokerRole", "SYNC_MASTER",
                 "flushDiskType", "SYNC_FLUSH", "haListenPort", Integer.toString(masterHaPort)));
             BrokerProcess slave = BrokerProcess.create(dir.resolve("slave"), Map.of("brokerRole", "SLAVE", "brokerId", "1",
                 "haListenPort", Integer.toString(BrokerProcess.freePort()),
                 "haMasterAddress", "127.0.0.1:" + masterHaPort,
                 // consumers read from it once the master is gone
                 "slaveReadEnable", "true"))) {
            master.start();
            slave.start();
            DefaultMQAdminExt admin = new DefaultMQAdminExt();
            admin.setNamesrvAddr(master.address());
            admin.setInstanceName(Clients.instanceName());
            admin.start();
            try {
                admin.createAndUpdateTopicConfig(master.address(), new TopicConfig(TOPIC, 4, 4, 6));
                admin.createAndUpdateTopicConfig(slave.address(), new TopicConfig(TOPIC, 4, 4, 6));
                // once the slave streams, the route lists the group: master as 0, slave as 1
                await().atMost(ofSeconds(30)).until(() ->
                    admin.examineTopicRouteInfo(TOPIC).getBrokerDatas().get(0).getBrokerAddrs()
                        .equals(Map.of(0L, master.address(), 1L, slave.address())));
                // the master reports its slave's acknowledged offset and lag in the runtime info
                Map<String, String> info = admin.fetchBrokerRuntimeStats(master.address()).getTable();
                assertEquals("SYNC_MASTER", info.get("haRole"));
                assertEquals("1", info.get("haConnectionCount"));
                assertTrue(info.containsKey("haSlave0AckOffset") && info.containsKey("haSlave0LagMs"), info.toString());
                assertEquals("SLAVE", admin.fetchBrokerRuntimeStats(slave.address()).getTable().get("haRole"));
            } finally {
                admin.shutdown();
            }
            NettyRemotingClient remoting = new NettyRemotingClient(new NettyClientConfig());
            remoting.start();
            try {
                RemotingCommand refused = remoting.invokeSync(slave.address(), rawSend(TOPIC), 10_000);
                assertEquals(ResponseCode.SERVICE_NOT_AVAILABLE, refused.getCode(), "a slave refuses sends");
            } finally {
                remoting.shutdown();
            }

            DefaultMQProducer producer = Clients.producer(master, "pg-failover");
            producer.setRetryTimesWhenSendFailed(0);
            producer.setSendMsgTimeout(3000);
            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> senders = new ArrayList<>();
            try {
                // SYNC_MASTER answers SLAVE_NOT_AVAILABLE until the slave streams: wait for a real ack
                await().atMost(ofSeconds(30)).until(() ->
                    producer.send(new Message(TOPIC, "warm".getBytes(StandardCharsets.UTF_8))).getSendStatus()
                        == SendStatus.SEND_OK);
                for (int t = 0; t < 4; t++) {
                    int thread = t;
                    Thread sender = new Thread(() -> {
                        for (int i = 0; !stop.get(); i++) {
                            String key = "k-" + thread + "-" + i;
                            try {
                                Message m = new Message(TOPIC, "", key, key.getBytes(StandardCharsets.UTF_8));
                                SendResult r = producer.send(m);
                                if (r.getSendStatus() == SendStatus.SEND_OK) {
                                    acknowledged.add(key);
                                }
                            } catch (Exception e) {
                                // the master is gone: not acknowledged
                            }
                        }
                    }, "sender-" + t);
                    senders.add(sender);
                    sender.start();
                }
                await().atMost(ofSeconds(60)).until(() -> acknowledged.size() >= 1500);
                master.killHard();
                stop.set(true);
                for (Thread sender : senders) {
                    sender.join(30_000);
                }
            } finally {
                stop.set(true);
                producer.shutdown();
            }
            Set<String> expected = new HashSet<>(acknowledged);
            assertTrue(expected.size() >= 1500);

            // reads keep working from the slave with the master gone
            DefaultLitePullConsumer consumer = Clients.litePull(slave, "cg-failover", TOPIC, "*");
            Set<String> read = new HashSet<>();
            try {
                long deadline = System.currentTimeMillis() + 60_000;
                while (!read.containsAll(expected) && System.currentTimeMillis() < deadline) {
                    for (MessageExt m : consumer.poll(1000)) {
                        read.add(m.getKeys() == null ? "warm" : m.getKeys());
                    }
                }
            } finally {
                consumer.shutdown();
            }
            Set<String> missing = new HashSet<>(expected);
            missing.removeAll(read);
            assertTrue(missing.isEmpty(), missing.size() + " acknowledged messages missing on the slave, e.g. "
                + missing.stream().limit(5).toList());

            // promotion: the slave becomes master under epoch 2 and takes sends
            remoting = new NettyRemotingClient(new NettyClientConfig());
            remoting.start();
            try {
                RemotingCommand promote = RemotingCommand.createRequestCommand(PROMOTE_TO_MASTER, null);
                promote.addExtField("role", "ASYNC_MASTER");
                promote.addExtField("expectedEpoch", "1");
                RemotingCommand answer = remoting.invokeSync(slave.address(), promote, 10_000);
                assertEquals(0, answer.getCode(), answer.getRemark());
                assertEquals("epoch=2", answer.getRemark());
            } finally {
                remoting.shutdown();
            }
            DefaultMQProducer after = Clients.producer(slave, "pg-after");
            try {
                SendResult r = after.send(new Message(TOPIC, "after".getBytes(StandardCharsets.UTF_8)));
                assertEquals(SendStatus.SEND_OK, r.getSendStatus());
            } finally {
                after.shutdown();
            }
        }
    }

    private static RemotingCommand rawSend(String topic) throws Exception {
        SendMessageRequestHeader h = new SendMessageRequestHeader();
        h.setProducerGroup("pg-raw");
        h.setTopic(topic);
        h.setDefaultTopic("TBW102");
        h.setDefaultTopicQueueNums(4);
        h.setQueueId(0);
        h.setSysFlag(0);
        h.setBornTimestamp(System.currentTimeMillis());
        h.setFlag(0);
        h.setProperties("UNIQ_KEY\u0001" + Long.toHexString(System.nanoTime()) + "\u0002");
        h.setReconsumeTimes(0);
        RemotingCommand request = RemotingCommand.createRequestCommand(RequestCode.SEND_MESSAGE_V2,
            SendMessageRequestHeaderV2.createSendMessageRequestHeaderV2(h));
        request.setBody("to-slave".getBytes(StandardCharsets.UTF_8));
        return request;
    }
}
