package io.basalt.it.ha;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;

/**
 * Timer messages across a fail-over, master and slave as two broker processes with 100 ms slots: the slave enqueues
 * the replicated timers but does not deliver them; its GET_TIMER_CHECK_POINT follows the master's queue offset; after
 * the master is killed and the slave promoted, the slave delivers the timers still pending, none early, and does not
 * deliver again those the master had delivered (it starts from the master's read time).
 */
@LeakCheckExtension.AllowThreads(value = "PullMsgThread-cg-timer-master",
    because = "the official 5.2.0 DefaultLitePullConsumer.shutdown() lets a pull in flight run to its timeout (up to 30 s"
        + " when the broker holds it), and the master it pulls from is killed with kill -9 soon after")
class TimerFailoverTest {
    private static final int GET_TIMER_CHECK_POINT = 60;
    private static final int PROMOTE_TO_MASTER = 10101;
    private static final String TOPIC = "TimerFailover";
    private static final int EACH = 10;

    @TempDir
    Path dir;

    /** The fields of a GET_TIMER_CHECK_POINT body a slave copies. */
    record Checkpoint(long lastReadTimeMs, long masterTimerQueueOffset) {
        static Checkpoint of(RemotingCommand answer) {
            assertEquals(0, answer.getCode(), answer.getRemark());
            ByteBuffer body = ByteBuffer.wrap(answer.getBody());
            return new Checkpoint(body.getLong(0), body.getLong(24));
        }
    }

    @Test
    void theSlaveFollowsTheMastersCheckpointAndOncePromotedDeliversWhatIsStillPending() throws Exception {
        int masterHaPort = BrokerProcess.freePort();
        try (BrokerProcess master = BrokerProcess.create(dir.resolve("master"), Map.of("brokerRole", "ASYNC_MASTER",
                 "haListenPort", Integer.toString(masterHaPort), "timerPrecisionMs", "100"));
             BrokerProcess slave = BrokerProcess.create(dir.resolve("slave"), Map.of("brokerRole", "SLAVE", "brokerId", "1",
                 "haListenPort", Integer.toString(BrokerProcess.freePort()), "haMasterAddress", "127.0.0.1:" + masterHaPort,
                 "timerPrecisionMs", "100"));
             Remoting remoting = new Remoting()) {
            master.start();
            slave.start();
            DefaultMQAdminExt admin = new DefaultMQAdminExt(10_000);
            admin.setNamesrvAddr(master.address());
            admin.setInstanceName(Clients.instanceName());
            admin.start();
            try {
                admin.createAndUpdateTopicConfig(master.address(), new TopicConfig(TOPIC, 4, 4, 6));
                admin.createAndUpdateTopicConfig(slave.address(), new TopicConfig(TOPIC, 4, 4, 6));
                await().atMost(ofSeconds(30)).until(() -> admin.examineTopicRouteInfo(TOPIC).getBrokerDatas().get(0)
                    .getBrokerAddrs().equals(Map.of(0L, master.address(), 1L, slave.address())));

                // early ones the master delivers, late ones still pending when it dies
                Map<String, Long> due = new HashMap<>();
                long now = System.currentTimeMillis();
                DefaultMQProducer producer = Clients.producer(master, "pg-timer-failover");
                try {
                    for (int i = 0; i < EACH; i++) {
                        due.put("early-" + i, send(producer, "early-" + i, now + 2_500 + i * 20L));
                        due.put("late-" + i, send(producer, "late-" + i, now + 15_000 + i * 20L));
                    }
                } finally {
                    producer.shutdown();
                }
                long lastEarlyDue = now + 2_500 + EACH * 20L;
                DefaultLitePullConsumer onMaster = Clients.litePull(master, "cg-timer-master", TOPIC, "*");
                try {
                    List<MessageExt> early = Clients.pollAtLeast(onMaster, EACH, 20_000);
                    assertEquals(EACH, early.size(), "the master delivers the early ones");
                } finally {
                    onMaster.shutdown();
                }

                // once the master's read time is past the early slots, one more timer moves its queue offset: the
                // slave's checkpoint reaching that offset copied a master checkpoint taken after the early deliveries
                await().atMost(ofSeconds(10)).until(() ->
                    Checkpoint.of(remoting.ask(master.address(), GET_TIMER_CHECK_POINT)).lastReadTimeMs() > lastEarlyDue);
                DefaultMQProducer last = Clients.producer(master, "pg-timer-failover-last");
                try {
                    due.put("late-last", send(last, "late-last", now + 15_000 + EACH * 20L));
                } finally {
                    last.shutdown();
                }
                long enqueuedOnMaster = 2 * EACH + 1;
                await().atMost(ofSeconds(10)).until(() -> Checkpoint.of(remoting.ask(master.address(),
                    GET_TIMER_CHECK_POINT)).masterTimerQueueOffset() == enqueuedOnMaster);
                await().atMost(ofSeconds(15)).until(() -> Checkpoint.of(remoting.ask(slave.address(),
                    GET_TIMER_CHECK_POINT)).masterTimerQueueOffset() == enqueuedOnMaster);
                await().atMost(ofSeconds(15)).until(() -> admin.fetchBrokerRuntimeStats(slave.address()).getTable()
                    .get("commitLogMaxOffset").equals(admin.fetchBrokerRuntimeStats(master.address()).getTable()
                        .get("commitLogMaxOffset")));
                assertTrue(System.currentTimeMillis() < now + 15_000, "the late timers are still pending at the kill");
                master.killHard();

                RemotingCommand promote = RemotingCommand.createRequestCommand(PROMOTE_TO_MASTER, null);
                promote.addExtField("role", "ASYNC_MASTER");
                promote.addExtField("expectedEpoch", "1");
                RemotingCommand promoted = remoting.client.invokeSync(slave.address(), promote, 10_000);
                assertEquals(0, promoted.getCode(), promoted.getRemark());

                DefaultLitePullConsumer onSlave = Clients.litePull(slave, "cg-timer-slave", TOPIC, "*");
                try {
                    List<MessageExt> all = Clients.pollAtLeast(onSlave, due.size(), 30_000);
                    // one more round: a second delivery of an early one would show here
                    all.addAll(onSlave.poll(1_000));
                    Map<String, Long> times = all.stream().collect(Collectors.groupingBy(
                        m -> new String(m.getBody(), StandardCharsets.UTF_8), Collectors.counting()));
                    assertEquals(due.keySet(), times.keySet(), "every timer is in the topic on the promoted slave");
                    times.forEach((body, n) -> assertEquals(1L, n, body + " delivered " + n + " times"));
                    for (MessageExt m : all) {
                        String body = new String(m.getBody(), StandardCharsets.UTF_8);
                        assertTrue(m.getStoreTimestamp() >= due.get(body), body + " delivered before it was due");
                    }
                } finally {
                    onSlave.shutdown();
                }
            } finally {
                admin.shutdown();
            }
        }
    }

    private static long send(DefaultMQProducer producer, String body, long deliverAt) throws Exception {
        Message m = new Message(TOPIC, body.getBytes(StandardCharsets.UTF_8));
        m.setDeliverTimeMs(deliverAt);
        assertEquals(SendStatus.SEND_OK, producer.send(m).getSendStatus());
        return deliverAt;
    }

    /** The official remoting client, for the requests no admin API sends. */
    private static final class Remoting implements AutoCloseable {
        final NettyRemotingClient client = new NettyRemotingClient(new NettyClientConfig());

        Remoting() {
            client.start();
        }

        RemotingCommand ask(String address, int code) throws Exception {
            return client.invokeSync(address, RemotingCommand.createRequestCommand(code, null), 5_000);
        }

        @Override
        public void close() {
            client.shutdown();
        }
    }
}
