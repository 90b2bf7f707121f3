package io.basalt.it.admin;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.it.BrokerHandle;
import io.basalt.it.MqAdmin;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.admin.OffsetWrapper;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.apache.rocketmq.tools.command.MQAdminStartup;
import org.apache.rocketmq.tools.command.SubCommand;
import org.apache.rocketmq.tools.command.offset.GetConsumerStatusCommand;
import org.apache.rocketmq.tools.command.offset.ResetOffsetByTimeOldCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Offset resets with the official 5.2.0 mqadmin, DefaultMQAdminExt and consumers against a Basalt broker that is
 * its own NameServer: {@code resetOffsetByTime} moves a running push consumer back (server-side path, and with
 * {@code useServerSideResetOffset=false} through RESET_CONSUMER_CLIENT_OFFSET to the client),
 * {@code skipAccumulatedMessage}, {@code cloneGroupOffset}, {@code getConsumerStatus}, {@code resetOffsetByTimeOld}
 * and the API calls the dashboard makes.
 */
class OffsetResetTest {
    private static final String TOPIC = "ResetTopic";
    private static final String GROUP = "cg-reset";

    @TempDir
    Path dir;

    /** How often each message key was delivered to a push consumer. */
    private final Map<String, AtomicInteger> receipts = new ConcurrentHashMap<>();
    /** The queue each message key was delivered from. */
    private final Map<String, Integer> queueOf = new ConcurrentHashMap<>();

    private static String mqadmin(String... args) {
        return MqAdmin.run(args);
    }

    /**
     * The 5.2.0 tools jar ships {@code getConsumerStatus} and {@code resetOffsetByTimeOld} as command classes, but its
     * mqadmin does not register them; an operator runs them by adding them to the command list, as here.
     */
    private static String mqadminUnregistered(SubCommand command, String... args) {
        synchronized (MqAdmin.class) {
            MQAdminStartup.initCommand(command);
        }
        return MqAdmin.run(args);
    }

    private static void send(BrokerHandle broker, String prefix, int count) throws Exception {
        DefaultMQProducer producer = AdminClients.producer(broker.address(), "pg-reset");
        try {
            for (int i = 0; i < count; i++) {
                Message m = new Message(TOPIC, "TagA", prefix + i, (prefix + i).getBytes(StandardCharsets.UTF_8));
                // alternately to queue 0 and queue 1: each queue holds messages
                assertEquals(SendStatus.SEND_OK, producer.send(m, (queues, msg, arg) -> queues.get((Integer) arg % queues.size()),
                    i).getSendStatus());
            }
        } finally {
            producer.shutdown();
        }
    }

    private static void createTopic(BrokerHandle broker) {
        String out = mqadmin("updateTopic", "-n", broker.address(), "-b", broker.address(), "-t", TOPIC, "-r", "2", "-w", "2");
        assertTrue(out.contains("success"), out);
    }

    private DefaultMQPushConsumer pushConsumer(BrokerHandle broker) throws Exception {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(GROUP);
        consumer.setNamesrvAddr(broker.address());
        consumer.setInstanceName(AdminClients.instanceName());
        consumer.setPollNameServerInterval(1000);
        consumer.setHeartbeatBrokerInterval(1000);
        consumer.setPersistConsumerOffsetInterval(1000);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(TOPIC, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            msgs.forEach(m -> {
                queueOf.put(m.getKeys(), m.getQueueId());
                receipts.computeIfAbsent(m.getKeys(), k -> new AtomicInteger()).incrementAndGet();
            });
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        return consumer;
    }

    private boolean everyKeyReceived(String prefix, int count, int times) {
        for (int i = 0; i < count; i++) {
            AtomicInteger n = receipts.get(prefix + i);
            if (n == null || n.get() < times) {
                return false;
            }
        }
        return true;
    }

    private static Map<MessageQueue, Long> committed(DefaultMQAdminExt admin, String group) throws Exception {
        Map<MessageQueue, Long> result = new HashMap<>();
        for (Map.Entry<MessageQueue, OffsetWrapper> e : admin.examineConsumeStats(group, TOPIC).getOffsetTable().entrySet()) {
            result.put(e.getKey(), e.getValue().getConsumerOffset());
        }
        return result;
    }

    @Test
    void serverSideResetMovesTheRunningPushConsumerBackAndTheOtherCommandsWork() throws Exception {
        try (BrokerHandle broker = BrokerHandle.start(dir.resolve("server-side"), Map.of())) {
            createTopic(broker);
            long beforeSends = System.currentTimeMillis() - 1;
            send(broker, "a-", 10);
            DefaultMQAdminExt admin = AdminClients.admin(broker.address());
            DefaultMQPushConsumer consumer = pushConsumer(broker);
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> everyKeyReceived("a-", 10, 1));
                await().atMost(Duration.ofSeconds(30)).until(() -> admin.examineConsumeStats(GROUP).computeTotalDiff() == 0);
                assertFalse(everyKeyReceived("a-", 10, 2));

                // getConsumerStatus: the client's own offsets, through the broker (223 → 221)
                String clientId = admin.examineConsumerConnectionInfo(GROUP).getConnectionSet().iterator().next().getClientId();
                Map<String, Map<MessageQueue, Long>> status = admin.getConsumeStatus(TOPIC, GROUP, "");
                assertEquals(Set.of(clientId), status.keySet());
                assertEquals(10L, status.get(clientId).values().stream().mapToLong(Long::longValue).sum());
                String statusOut = mqadminUnregistered(new GetConsumerStatusCommand(), "getConsumerStatus", "-n", broker.address(), "-g", GROUP, "-t", TOPIC);
                assertTrue(statusOut.contains(clientId), statusOut);
                assertFalse(statusOut.contains("Exception"), statusOut);

                // resetOffsetByTime to before the first send: the running consumer receives every message again
                String out = mqadmin("resetOffsetByTime", "-n", broker.address(), "-g", GROUP, "-t", TOPIC,
                    "-s", Long.toString(beforeSends));
                assertTrue(out.contains("#offset"), out);
                assertFalse(out.contains("Exception"), out);
                await().atMost(Duration.ofSeconds(90)).until(() -> everyKeyReceived("a-", 10, 2));
                await().atMost(Duration.ofSeconds(30)).until(() -> admin.examineConsumeStats(GROUP).computeTotalDiff() == 0);

                // cloneGroupOffset: sent to the brokers of %RETRY%cg-reset's route
                String clone = mqadmin("cloneGroupOffset", "-n", broker.address(), "-s", GROUP, "-d", "cg-reset-clone",
                    "-t", TOPIC);
                assertFalse(clone.contains("Exception"), clone);
                assertEquals(committed(admin, GROUP), committed(admin, "cg-reset-clone"));
                assertEquals(10L, committed(admin, "cg-reset-clone").values().stream().mapToLong(Long::longValue).sum());

                // the correction offsets the dashboard asks for
                Map<Integer, Long> corrections = admin.getDefaultMQAdminExtImpl().getMqClientInstance().getMQClientAPIImpl()
                    .queryCorrectionOffset(broker.address(), TOPIC, GROUP, Set.of("cg-reset-clone"), 5000);
                assertEquals(Map.of(0, committed(admin, GROUP).get(new MessageQueue(TOPIC, brokerName(admin), 0))),
                    Map.of(0, corrections.get(0)));

                // -b -q -o: one queue to a given offset (the 5.2.0 mqadmin sends nothing for -o 0)
                String one = mqadmin("resetOffsetByTime", "-n", broker.address(), "-g", GROUP, "-t", TOPIC, "-s", "now",
                    "-b", broker.address(), "-q", "0", "-o", "1");
                assertFalse(one.contains("Exception"), one);
                // the messages of queue 0 come a third time, those of queue 1 do not
                await().atMost(Duration.ofSeconds(90)).alias("queue 0 delivered again from offset 1").until(() -> queueOf
                    .entrySet().stream().filter(e -> e.getValue() == 0 && !e.getKey().equals("a-0"))
                    .allMatch(e -> receipts.get(e.getKey()).get() >= 3));
                assertEquals(0, queueOf.get("a-0"));
                assertEquals(2, receipts.get("a-0").get(), receipts::toString);
                assertTrue(queueOf.entrySet().stream().filter(e -> e.getValue() == 1)
                    .allMatch(e -> receipts.get(e.getKey()).get() == 2), receipts::toString);

                // the dashboard's reset: resetOffsetByTimestamp, then resetOffsetNew (which falls back when no one is online)
                Map<MessageQueue, Long> table = admin.resetOffsetByTimestamp(TOPIC, GROUP, System.currentTimeMillis() + 60_000, true);
                assertEquals(2, table.size());
            } finally {
                consumer.shutdown();
                admin.shutdown();
            }
        }
    }

    private static String brokerName(DefaultMQAdminExt admin) throws Exception {
        return admin.examineTopicRouteInfo(TOPIC).getBrokerDatas().get(0).getBrokerName();
    }

    @Test
    void skipAccumulatedMessageLeavesNoLagAndNewMessagesAreStillConsumed() throws Exception {
        try (BrokerHandle broker = BrokerHandle.start(dir.resolve("skip"), Map.of())) {
            createTopic(broker);
            send(broker, "s-", 5);
            DefaultMQAdminExt admin = AdminClients.admin(broker.address());
            try {
                DefaultLitePullConsumer consumer = AdminClients.litePull(broker.address(), "cg-skip", TOPIC);
                try {
                    List<MessageExt> got = new ArrayList<>();
                    await().atMost(Duration.ofSeconds(60)).until(() -> {
                        got.addAll(consumer.poll(200));
                        return got.size() >= 5;
                    });
                    await().atMost(Duration.ofSeconds(30)).until(() -> {
                        consumer.poll(100);
                        return admin.examineConsumeStats("cg-skip").computeTotalDiff() == 0;
                    });
                } finally {
                    consumer.shutdown();
                }
                send(broker, "t-", 8);
                await().atMost(Duration.ofSeconds(10)).until(() -> admin.examineConsumeStats("cg-skip").computeTotalDiff() > 0);
                assertEquals(13L, committedTotal(admin, "cg-skip") + admin.examineConsumeStats("cg-skip").computeTotalDiff(),
                    () -> "committed: " + committedOrError(admin, "cg-skip"));

                String out = mqadmin("skipAccumulatedMessage", "-n", broker.address(), "-g", "cg-skip", "-t", TOPIC);
                assertFalse(out.contains("Exception"), out);
                assertEquals(0, admin.examineConsumeStats("cg-skip").computeTotalDiff(), out);

                DefaultLitePullConsumer again = AdminClients.litePull(broker.address(), "cg-skip", TOPIC);
                try {
                    send(broker, "u-", 3);
                    List<String> keys = new ArrayList<>();
                    await().atMost(Duration.ofSeconds(60)).until(() -> {
                        again.poll(200).forEach(m -> keys.add(m.getKeys()));
                        return keys.size() >= 3;
                    });
                    assertTrue(keys.stream().allMatch(k -> k.startsWith("u-")), "the skipped messages stay skipped: " + keys);
                } finally {
                    again.shutdown();
                }
            } finally {
                admin.shutdown();
            }
        }
    }

    private static long committedTotal(DefaultMQAdminExt admin, String group) throws Exception {
        return committed(admin, group).values().stream().mapToLong(Long::longValue).sum();
    }

    private static String committedOrError(DefaultMQAdminExt admin, String group) {
        try {
            return admin.examineConsumeStats(group).getOffsetTable().toString();
        } catch (Exception e) {
            return e.toString();
        }
    }

    @Test
    void withoutServerSideResetTheBrokerSendsTheOffsetsToTheOnlinePushConsumer() throws Exception {
        try (BrokerHandle broker = BrokerHandle.start(dir.resolve("client-side"), Map.of("useServerSideResetOffset", "false"))) {
            createTopic(broker);
            long beforeSends = System.currentTimeMillis() - 1;
            send(broker, "c-", 6);
            DefaultMQAdminExt admin = AdminClients.admin(broker.address());
            DefaultMQPushConsumer consumer = pushConsumer(broker);
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> everyKeyReceived("c-", 6, 1));
                await().atMost(Duration.ofSeconds(30)).until(() -> admin.examineConsumeStats(GROUP).computeTotalDiff() == 0);

                String out = mqadmin("resetOffsetByTime", "-n", broker.address(), "-g", GROUP, "-t", TOPIC,
                    "-s", Long.toString(beforeSends));
                assertTrue(out.contains("#offset"), out);
                assertFalse(out.contains("Exception"), out);
                // the 5.2.0 client pauses 10 s before it applies RESET_CONSUMER_CLIENT_OFFSET
                await().atMost(Duration.ofSeconds(90)).until(() -> everyKeyReceived("c-", 6, 2));
                consumer.shutdown();

                // nobody online: the old path refuses with CONSUMER_NOT_ONLINE, and resetOffsetNew falls back to
                // resetOffsetByTimeOld (the admin client commits the offsets itself)
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    try {
                        return admin.examineConsumerConnectionInfo(GROUP).getConnectionSet().isEmpty();
                    } catch (Exception e) {
                        return true;
                    }
                });
                MQClientException refused = assertThrows(MQClientException.class,
                    () -> admin.resetOffsetByTimestamp(TOPIC, GROUP, beforeSends, true));
                assertEquals(ResponseCode.CONSUMER_NOT_ONLINE, refused.getResponseCode(), refused.getMessage());

                admin.resetOffsetNew(GROUP, TOPIC, beforeSends);
                assertEquals(0L, committedTotal(admin, GROUP));

                String old = mqadminUnregistered(new ResetOffsetByTimeOldCommand(), "resetOffsetByTimeOld", "-n",
                    broker.address(), "-g", GROUP, "-t", TOPIC, "-s", Long.toString(System.currentTimeMillis()));
                assertTrue(old.contains("#resetOffset"), old);
                assertFalse(old.contains("Exception"), old);
            } finally {
                consumer.shutdown();
                admin.shutdown();
            }
        }
    }
}
