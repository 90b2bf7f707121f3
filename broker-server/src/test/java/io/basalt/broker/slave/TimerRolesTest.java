package io.basalt.broker.slave;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import io.basalt.broker.BrokerController;
import io.basalt.broker.config.BrokerConfiguration;
import io.basalt.remoting.netty.NettyClientConfig;
import io.basalt.remoting.netty.NettyRemotingClient;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.BrokerMessage;
import io.basalt.store.PutMessageStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who delivers timer messages, in a master and its slave in this JVM: the master, not the slave; the slave once
 * promoted; nobody after shutdown. The slave's timer checkpoint copies the master's queue offset.
 */
class TimerRolesTest {
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
        Map<String, String> properties = new HashMap<>(Map.of("listenPort", "0", "haListenPort", "0",
            "metricsPort", "0", "bindAddress", "127.0.0.1", "brokerIP1", "127.0.0.1", "storePathRootDir", root.toString(),
            "mappedFileSizeCommitLog", Integer.toString(1 << 20), "warmMapedFileEnable", "false"));
        properties.putAll(extra);
        return BrokerConfiguration.of(properties);
    }

    private RemotingCommand ask(BrokerController broker, int code) throws Exception {
        return client.invokeSync("127.0.0.1:" + broker.listenPort(), RemotingCommand.request(code), 5_000);
    }

    /** masterTimerQueueOffset of a GET_TIMER_CHECK_POINT answer. */
    private static long checkpointQueueOffset(RemotingCommand answer) {
        assertEquals(ResponseCode.SUCCESS, answer.code(), answer.remark());
        assertEquals(56, answer.body().length);
        return ByteBuffer.wrap(answer.body()).getLong(24);
    }

    @Test
    void theMasterDeliversTheSlaveFollowsItsCheckpointAndDeliversOncePromoted() throws Exception {
        master = BrokerController.create(config(dir.resolve("master"), Map.of()));
        master.start();
        slave = BrokerController.create(config(dir.resolve("slave"), Map.of("brokerRole", "SLAVE", "brokerId", "1",
            "haMasterAddress", "127.0.0.1:" + master.configuration().ha().haListenPort())));
        slave.start();
        client = new NettyRemotingClient(NettyClientConfig.defaults());

        assertTrue(master.store().timerMessages().enabled(), "timerWheelEnable defaults to true, as in RocketMQ 5");
        assertTrue(master.store().timerMessages().dequeueEnabled(), "a master delivers");
        assertFalse(slave.store().timerMessages().dequeueEnabled(), "a slave only enqueues");

        // three timers a minute away: the master's enqueue offset moves to 3, and the slave's copy follows
        for (int i = 0; i < 3; i++) {
            BrokerMessage timer = BrokerMessage.builder().topic("Later").queueId(0).body(new byte[] {1})
                .properties(Map.of("TIMER_DELAY_SEC", "60")).bornTimestamp(System.currentTimeMillis())
                .bornHost(new InetSocketAddress("127.0.0.1", 40000)).storeHost(new InetSocketAddress("127.0.0.1", 10911))
                .build();
            assertEquals(PutMessageStatus.PUT_OK, master.store().asyncPutMessage(timer).join().status());
        }
        await().atMost(ofSeconds(15)).until(() -> checkpointQueueOffset(ask(master, RequestCode.GET_TIMER_CHECK_POINT)) == 3);
        await().atMost(ofSeconds(15)).until(() -> checkpointQueueOffset(ask(slave, RequestCode.GET_TIMER_CHECK_POINT)) == 3);
        RemotingCommand metrics = ask(master, RequestCode.GET_TIMER_METRICS);
        assertEquals(ResponseCode.SUCCESS, metrics.code(), metrics.remark());

        await().atMost(ofSeconds(20)).until(() -> slave.replication().masterStreaming());
        RemotingCommand promote = RemotingCommand.request(10101);
        promote.putExtField("role", "ASYNC_MASTER");
        promote.putExtField("expectedEpoch", Long.toString(slave.replication().epoch()));
        RemotingCommand answer = client.invokeSync("127.0.0.1:" + slave.listenPort(), promote, 10_000);
        assertEquals(ResponseCode.SUCCESS, answer.code(), answer.remark());
        assertTrue(slave.store().timerMessages().dequeueEnabled(), "a promoted slave delivers");

        master.shutdown();
        assertFalse(master.store().timerMessages().dequeueEnabled(), "nothing is delivered after shutdown");
    }

    @Test
    void withTheWheelDisabledTheTimerRequestsAnswerRocketMqsErrors() throws Exception {
        master = BrokerController.create(config(dir.resolve("disabled"), Map.of("timerWheelEnable", "false")));
        master.start();
        client = new NettyRemotingClient(NettyClientConfig.defaults());
        assertFalse(master.store().timerMessages().enabled());
        RemotingCommand check = ask(master, RequestCode.GET_TIMER_CHECK_POINT);
        assertEquals(ResponseCode.SYSTEM_ERROR, check.code());
        assertEquals("The checkpoint is null", check.remark());
        RemotingCommand metrics = ask(master, RequestCode.GET_TIMER_METRICS);
        assertEquals(ResponseCode.SYSTEM_ERROR, metrics.code());
        assertEquals("The timer message store is null", metrics.remark());
    }
}
