package io.basalt.it.admin;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.it.BrokerHandle;
import io.basalt.it.MqAdmin;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.protocol.admin.ConsumeStats;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every subcommand of the official 5.2.0 {@code mqadmin} that applies to one Basalt broker, run with realistic
 * arguments against one shared broker, each checked for what it prints; and the subcommands of RocketMQ features
 * Basalt does not have, each checked for an answer that names the missing feature. The subclasses choose the
 * NameServer: the broker itself, or the real RocketMQ 5.2.0 NameServer.
 *
 * <p>The subcommands of the broker configuration, NameServer KV/config/permission, offset, statistics and
 * maintenance areas have a test method each named after the subcommand ({@code brokerConfig_*}, {@code namesrv_*},
 * {@code offsets_*}, {@code stats_*}, {@code maintenance_*}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class MqAdminSubcommands {
    static final String TOPIC = "EvTopic";
    /** The topic the tests that send more messages use, so that {@link #TOPIC}'s counts and its push consumer stay put. */
    static final String SENT_TOPIC = "EvSent";
    /** A group with committed offsets (at the end of {@link #TOPIC}) that the offset tests may move. */
    static final String RESET_GROUP = "cg-ev-reset";
    /** A group with committed offsets at the start of {@link #TOPIC}, for skipAccumulatedMessage. */
    static final String SKIP_GROUP = "cg-ev-skip";
    static final String PULLED_GROUP = "cg-ev";
    static final String PUSH_GROUP = "cg-ev-push";
    static final String PRODUCER_GROUP = "pg-ev";
    static final String CLUSTER = "DefaultCluster";
    static final String BROKER_NAME = "broker-a";

    BrokerHandle broker;
    String ns;
    String addr;
    Path work;
    final List<SendResult> sent = new ArrayList<>();
    final List<MessageExt> pushed = new CopyOnWriteArrayList<>();
    final List<AutoCloseable> cleanups = new ArrayList<>();
    /** Closed after the broker (the NameServer). */
    final List<AutoCloseable> afterBroker = new ArrayList<>();
    DefaultMQProducer producer;

    /** Starts the broker (and NameServer) and returns the NameServer address mqadmin's {@code -n} names. */
    abstract String startBroker() throws Exception;

    @BeforeAll
    void start() throws Exception {
        ns = startBroker();
        addr = broker.address();
        String out = mqadmin("updateTopic", "-n", ns, "-b", addr, "-t", TOPIC, "-r", "2", "-w", "2");
        assertTrue(out.contains("create topic to " + addr + " success"), out);
        String sentTopic = mqadmin("updateTopic", "-n", ns, "-b", addr, "-t", SENT_TOPIC, "-r", "2", "-w", "2");
        assertTrue(sentTopic.contains("create topic to " + addr + " success"), sentTopic);
        await().atMost(Duration.ofSeconds(30)).until(() -> topicRouted(TOPIC) && topicRouted(SENT_TOPIC));

        producer = AdminClients.producer(ns, PRODUCER_GROUP);
        cleanups.add(producer::shutdown);
        for (int i = 0; i < 10; i++) {
            SendResult r = producer.send(new Message(TOPIC, "TagA", "ev-key-" + i,
                ("ev-body-" + i).getBytes(StandardCharsets.UTF_8)));
            assertEquals(SendStatus.SEND_OK, r.getSendStatus());
            sent.add(r);
        }
        DefaultLitePullConsumer pull = AdminClients.litePull(ns, PULLED_GROUP, TOPIC);
        DefaultMQAdminExt admin = AdminClients.admin(ns);
        try {
            List<MessageExt> got = new ArrayList<>();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                got.addAll(pull.poll(500));
                return got.size() >= 10;
            });
            // behind a NameServer the group's retry topic is routable within a second of the first heartbeat
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
                pull.poll(100);
                ConsumeStats stats = admin.examineConsumeStats(PULLED_GROUP);
                return stats.getOffsetTable().size() == 2 && stats.computeTotalDiff() == 0;
            });
            for (String group : List.of(RESET_GROUP, SKIP_GROUP)) {
                String created = mqadmin("updateSubGroup", "-n", ns, "-b", addr, "-g", group);
                assertTrue(created.contains("create subscription group to " + addr + " success"), created);
            }
            for (var queue : admin.examineConsumeStats(PULLED_GROUP).getOffsetTable().entrySet()) {
                admin.updateConsumeOffset(addr, RESET_GROUP, queue.getKey(), queue.getValue().getBrokerOffset());
                admin.updateConsumeOffset(addr, SKIP_GROUP, queue.getKey(), 0);
            }
        } finally {
            pull.shutdown();
            admin.shutdown();
        }
        DefaultMQPushConsumer push = new DefaultMQPushConsumer(PUSH_GROUP);
        push.setNamesrvAddr(ns);
        push.setInstanceName(AdminClients.instanceName());
        push.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        push.setHeartbeatBrokerInterval(1000);
        push.subscribe(TOPIC, "*");
        push.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            pushed.addAll(msgs);
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        push.start();
        cleanups.add(push::shutdown);
        await().atMost(Duration.ofSeconds(60)).until(() -> pushed.size() >= 10);
    }

    @AfterAll
    void stop() throws Exception {
        for (int i = cleanups.size() - 1; i >= 0; i--) {
            cleanups.get(i).close();
        }
        if (broker != null) {
            broker.close();
        }
        for (AutoCloseable c : afterBroker) {
            c.close();
        }
    }

    private boolean topicRouted(String topic) {
        return mqadmin("topicRoute", "-n", ns, "-t", topic).contains("\"brokerName\":\"" + BROKER_NAME + "\"");
    }

    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (var files = Files.walk(root)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static String mqadmin(String... args) {
        return MqAdmin.run(args);
    }

    /** No failed subcommand (mqadmin prints a SubCommandException and its stack). */
    static void assertNoError(String out) {
        assertFalse(out.contains("SubCommandException"), out);
        assertFalse(out.lines().anyMatch(l -> l.startsWith("\tat ")), out);
    }

    /** The output of a subcommand of a feature Basalt does not have: RocketMQ's code 3 with the feature named. */
    static void assertRefused(String out, String feature) {
        assertTrue(out.contains("CODE: 3 "), out);
        assertTrue(out.contains("Basalt does not implement " + feature), out);
    }

    // ---- topics ----

    @Test
    void updateTopic_byCluster_topicRoute_topicClusterList_updateTopicPerm_deleteTopic() {
        String created = mqadmin("updateTopic", "-n", ns, "-c", CLUSTER, "-t", "EvLifecycle", "-r", "3", "-w", "3");
        assertNoError(created);
        assertTrue(created.contains("create topic to " + addr + " success"), created);
        await().atMost(Duration.ofSeconds(30)).until(() -> topicRouted("EvLifecycle"));

        String route = mqadmin("topicRoute", "-n", ns, "-t", "EvLifecycle");
        assertTrue(route.contains("\"readQueueNums\":3"), route);
        assertTrue(route.contains(addr), route);

        String clusters = mqadmin("topicClusterList", "-n", ns, "-t", "EvLifecycle");
        assertNoError(clusters);
        assertTrue(clusters.lines().anyMatch(l -> l.trim().equals(CLUSTER)), clusters);

        String perm = mqadmin("updateTopicPerm", "-n", ns, "-c", CLUSTER, "-t", "EvLifecycle", "-p", "4");
        assertNoError(perm);
        assertTrue(perm.contains("update topic perm from 6 to 4 in " + addr + " success"), perm);
        await().atMost(Duration.ofSeconds(30))
            .until(() -> mqadmin("topicRoute", "-n", ns, "-t", "EvLifecycle").contains("\"perm\":4"));

        String deleted = mqadmin("deleteTopic", "-n", ns, "-c", CLUSTER, "-t", "EvLifecycle");
        assertNoError(deleted);
        assertTrue(deleted.contains("delete topic [EvLifecycle] from cluster [" + CLUSTER + "] success"), deleted);
        assertTrue(deleted.contains("delete topic [EvLifecycle] from NameServer success"), deleted);
        await().atMost(Duration.ofSeconds(30)).until(() -> !mqadmin("topicList", "-n", ns).lines()
            .anyMatch(l -> l.trim().equals("EvLifecycle")));
    }

    @Test
    void topicList() {
        String out = mqadmin("topicList", "-n", ns);
        assertNoError(out);
        assertTrue(out.lines().anyMatch(l -> l.trim().equals(TOPIC)), out);
        String byCluster = mqadmin("topicList", "-n", ns, "-c");
        assertNoError(byCluster);
        assertTrue(byCluster.lines().anyMatch(l -> l.startsWith(CLUSTER) && l.contains(TOPIC)), byCluster);
    }

    @Test
    void topicStatus() {
        String out = mqadmin("topicStatus", "-n", ns, "-t", TOPIC);
        assertNoError(out);
        assertTrue(out.contains("#Max Offset"), out);
        assertEquals(2, out.lines().filter(l -> l.startsWith(BROKER_NAME)).count(), out);
    }

    @Test
    void allocateMQ() {
        String out = mqadmin("allocateMQ", "-n", ns, "-t", TOPIC, "-i", "10.0.0.1,10.0.0.2");
        assertNoError(out);
        assertTrue(out.contains("10.0.0.1") && out.contains("10.0.0.2"), out);
        assertTrue(out.contains("\"queueId\":0") && out.contains("\"queueId\":1"), out);
    }

    // ---- subscription groups ----

    @Test
    void updateSubGroup_getConsumerConfig_deleteSubGroup() {
        String created = mqadmin("updateSubGroup", "-n", ns, "-b", addr, "-g", "cg-ev-created", "-r", "5");
        assertNoError(created);
        assertTrue(created.contains("create subscription group to " + addr + " success"), created);

        String config = mqadmin("getConsumerConfig", "-n", ns, "-g", "cg-ev-created");
        assertNoError(config);
        assertTrue(config.contains("cg-ev-created"), config);
        assertTrue(config.contains("retryMaxTimes") && config.contains("5"), config);

        String deleted = mqadmin("deleteSubGroup", "-n", ns, "-b", addr, "-g", "cg-ev-created");
        assertNoError(deleted);
        assertTrue(deleted.contains("delete subscription group [cg-ev-created] from broker [" + addr + "] success"),
            deleted);
        String after = mqadmin("getConsumerConfig", "-n", ns, "-g", "cg-ev-created");
        assertFalse(after.contains("retryMaxTimes"), after);
    }

    // ---- brokers and cluster ----

    @Test
    void clusterList() {
        String out = mqadmin("clusterList", "-n", ns);
        assertNoError(out);
        assertTrue(out.lines().anyMatch(l -> l.startsWith(CLUSTER) && l.contains(BROKER_NAME) && l.contains(addr)), out);
    }

    @Test
    void brokerStatus() {
        String out = mqadmin("brokerStatus", "-n", ns, "-b", addr);
        assertNoError(out);
        assertTrue(out.contains("msgPutTotalTodayNow"), out);
        assertTrue(out.contains("brokerVersionDesc"), out);
        String byCluster = mqadmin("brokerStatus", "-n", ns, "-c", CLUSTER);
        assertTrue(byCluster.contains("msgPutTotalTodayNow"), byCluster);
    }

    @Test
    void haStatus() {
        String out = mqadmin("haStatus", "-n", ns, "-b", addr);
        assertNoError(out);
        assertTrue(out.contains("#MasterAddr") || out.contains("Master"), out);
    }

    @Test
    void sendMsgStatus() {
        String out = mqadmin("sendMsgStatus", "-n", ns, "-b", BROKER_NAME, "-s", "128", "-c", "3");
        assertNoError(out);
        assertEquals(3, out.lines().filter(l -> l.contains("SEND_OK")).count(), out);
    }

    @Test
    void checkMsgSendRT() {
        String out = mqadmin("checkMsgSendRT", "-n", ns, "-t", SENT_TOPIC, "-a", "4", "-s", "64");
        assertNoError(out);
        assertEquals(4, out.lines().filter(l -> l.startsWith(BROKER_NAME) && l.contains("true")).count(), out);
        assertTrue(out.contains("Avg RT"), out);
    }

    @Test
    void exportMetadata() throws Exception {
        Path file = Files.createTempDirectory("ev-export");
        try {
            String out = mqadmin("exportMetadata", "-n", ns, "-c", CLUSTER, "-f", file.toString());
            assertNoError(out);
            assertTrue(out.contains("export " + file.resolve("metadata.json") + " success"), out);
            String written = Files.readString(file.resolve("metadata.json"));
            assertTrue(written.contains("\"" + TOPIC + "\""), written);
            assertTrue(written.contains("\"" + PULLED_GROUP + "\""), written);

            String topics = mqadmin("exportMetadata", "-n", ns, "-b", addr, "-t", "-f", file.toString());
            assertTrue(topics.contains("export " + file.resolve("topic.json") + " success"), topics);
            assertTrue(Files.readString(file.resolve("topic.json")).contains("\"" + TOPIC + "\""));
        } finally {
            try (var files = Files.walk(file)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    // ---- messages ----

    @Test
    void queryMsgById() {
        String out = mqadmin("queryMsgById", "-n", ns, "-i", sent.get(4).getOffsetMsgId());
        assertNoError(out);
        assertTrue(out.contains("ev-key-4"), out);
        assertTrue(out.contains(TOPIC), out);
    }

    @Test
    void queryMsgByKey() {
        String out = mqadmin("queryMsgByKey", "-n", ns, "-t", TOPIC, "-k", "ev-key-3");
        assertNoError(out);
        assertTrue(out.contains(sent.get(3).getMsgId()), out);
    }

    @Test
    void queryMsgByUniqueKey() {
        String out = mqadmin("queryMsgByUniqueKey", "-n", ns, "-t", TOPIC, "-i", sent.get(5).getMsgId());
        assertNoError(out);
        assertTrue(out.contains("ev-key-5"), out);
        assertTrue(out.contains(sent.get(5).getMsgId()), out);
    }

    @Test
    void queryMsgByOffset() {
        SendResult first = sent.get(0);
        String out = mqadmin("queryMsgByOffset", "-n", ns, "-t", TOPIC, "-b", BROKER_NAME,
            "-i", String.valueOf(first.getMessageQueue().getQueueId()), "-o", String.valueOf(first.getQueueOffset()));
        assertNoError(out);
        assertTrue(out.contains("ev-key-0"), out);
    }

    @Test
    void printMsg() {
        String out = mqadmin("printMsg", "-n", ns, "-t", TOPIC, "-d", "true");
        assertNoError(out);
        for (int i = 0; i < 10; i++) {
            int n = i;
            assertTrue(out.lines().anyMatch(l -> l.startsWith("MSGID:") && l.contains("ev-body-" + n)), out);
        }
    }

    @Test
    void printMsgByQueue() {
        int queue = sent.get(0).getMessageQueue().getQueueId();
        long inQueue = sent.stream().filter(r -> r.getMessageQueue().getQueueId() == queue).count();
        String out = mqadmin("printMsgByQueue", "-n", ns, "-t", TOPIC, "-a", BROKER_NAME, "-i", String.valueOf(queue),
            "-p", "true", "-d", "true");
        assertNoError(out);
        assertEquals(inQueue, out.lines().filter(l -> l.startsWith("MSGID:")).count(), out);
    }

    @Test
    void sendMessage_consumeMessage() {
        String out = mqadmin("sendMessage", "-n", ns, "-t", SENT_TOPIC, "-p", "ev-sent-by-mqadmin", "-k", "ev-cli-key",
            "-b", BROKER_NAME, "-i", "1");
        assertNoError(out);
        String row = out.lines().filter(l -> l.startsWith(BROKER_NAME)).findFirst().orElseThrow(() -> new AssertionError(out));
        assertTrue(row.contains("SEND_OK"), out);

        String consumed = mqadmin("consumeMessage", "-n", ns, "-t", SENT_TOPIC, "-b", BROKER_NAME, "-i", "1", "-o", "0",
            "-c", "20", "-g", "cg-ev-cli");
        assertNoError(consumed);
        assertTrue(consumed.contains("ev-sent-by-mqadmin"), consumed);
    }

    @Test
    void queryMsgTraceById() throws Exception {
        DefaultMQProducer traced = new DefaultMQProducer("pg-ev-traced", true, null);
        traced.setNamesrvAddr(ns);
        traced.setInstanceName(AdminClients.instanceName());
        traced.start();
        try {
            SendResult r = traced.send(new Message(SENT_TOPIC, "TagT", "ev-traced", "traced".getBytes(StandardCharsets.UTF_8)));
            assertEquals(SendStatus.SEND_OK, r.getSendStatus());
            String out = await().atMost(Duration.ofSeconds(60)).until(
                () -> mqadmin("queryMsgTraceById", "-n", ns, "-i", r.getMsgId()),
                o -> o.lines().anyMatch(l -> l.startsWith("Pub") && l.contains("pg-ev-traced") && l.contains("success")));
            assertTrue(out.contains("#ProducerGroup"), out);
        } finally {
            traced.shutdown();
        }
    }

    // ---- clients ----

    @Test
    void producerConnection() {
        String out = mqadmin("producerConnection", "-n", ns, "-g", PRODUCER_GROUP, "-t", TOPIC);
        assertNoError(out);
        assertTrue(out.contains("JAVA") && out.contains("V5_2_0"), out);
    }

    @Test
    void producer() {
        String out = mqadmin("producer", "-n", ns, "-b", addr);
        assertNoError(out);
        assertTrue(out.contains(PRODUCER_GROUP), out);
    }

    @Test
    void consumerConnection() {
        String out = mqadmin("consumerConnection", "-n", ns, "-g", PUSH_GROUP);
        assertNoError(out);
        assertTrue(out.contains("V5_2_0"), out);
        assertTrue(out.contains(TOPIC), out);
        assertTrue(out.contains("CONSUME_PASSIVELY"), out);
        assertTrue(out.contains("CLUSTERING"), out);
    }

    @Test
    void consumerProgress() {
        String out = mqadmin("consumerProgress", "-n", ns, "-g", PULLED_GROUP);
        assertNoError(out);
        assertTrue(out.contains(TOPIC), out);
        assertTrue(out.contains("Diff Total: 0"), out);
        String all = mqadmin("consumerProgress", "-n", ns);
        assertTrue(all.lines().anyMatch(l -> l.startsWith(PUSH_GROUP)), all);
    }

    @Test
    void consumerStatus() {
        String out = mqadmin("consumerStatus", "-n", ns, "-g", PUSH_GROUP);
        // the tool writes each client's running info under <timestamp>/<clientId> in the working directory
        out.lines().filter(l -> l.matches("^\\d+\\s+.*/.*"))
            .map(l -> Path.of(l.substring(l.lastIndexOf(' ') + 1)).getName(0))
            .forEach(MqAdminSubcommands::deleteTree);
        assertNoError(out);
        assertTrue(out.contains("Same subscription in the same group of consumer"), out);
        assertTrue(out.contains("Rebalance OK"), out);
    }

    // ---- features Basalt does not have: a clear refusal, not a timeout or a success ----

    @Test
    void updateStaticTopic_refused() {
        String out = mqadmin("updateStaticTopic", "-n", ns, "-c", CLUSTER, "-t", "EvStatic", "-qn", "2");
        // the tool writes the mapping it planned to files of its own before it sends anything
        out.lines().filter(l -> l.contains("mapping data is written to file "))
            .map(l -> Path.of(l.substring(l.indexOf("file ") + 5).trim()))
            .forEach(p -> p.toFile().delete());
        assertRefused(out, "static topics");
    }

    /** Refused in the client already: no Basalt topic has the static mapping the command starts from. */
    @Test
    void remappingStaticTopic_refused() {
        String out = mqadmin("remappingStaticTopic", "-n", ns, "-c", CLUSTER, "-t", TOPIC);
        assertTrue(out.contains("Mapping info should not be null in broker " + BROKER_NAME), out);
    }

    @Test
    void addBroker_removeBroker_refused() throws Exception {
        Path conf = Files.createTempFile("ev-container", ".conf");
        try {
            Files.writeString(conf, "brokerName=broker-b\n");
            assertRefused(mqadmin("addBroker", "-n", ns, "-c", addr, "-b", conf.toString()), "the broker container");
        } finally {
            Files.delete(conf);
        }
        assertRefused(mqadmin("removeBroker", "-n", ns, "-c", addr, "-b", CLUSTER + ":" + BROKER_NAME + ":1"),
            "the broker container");
    }

    @Test
    void coldData_refused() {
        assertRefused(mqadmin("getColdDataFlowCtrInfo", "-n", ns, "-b", addr), "cold data");
        assertRefused(mqadmin("updateColdDataFlowCtrGroupConfig", "-n", ns, "-b", addr, "-g", PULLED_GROUP,
            "-v", "1000"), "cold data");
        assertRefused(mqadmin("removeColdDataFlowCtrGroupConfig", "-n", ns, "-b", addr, "-g", PULLED_GROUP),
            "cold data");
    }

    @Test
    void setConsumeMode() {
        // the push consumer of PUSH_GROUP rebalances itself (clientRebalance=true): the mode concerns only consumers
        // that ask the broker for their queues (ConsumeModeTest)
        String byBroker = mqadmin("setConsumeMode", "-n", ns, "-b", addr, "-g", PUSH_GROUP, "-t", TOPIC, "-m", "POP",
            "-q", "8");
        assertNoError(byBroker);
        assertTrue(byBroker.contains("set consume mode to " + addr + " success."), byBroker);
        assertTrue(byBroker.contains("topic[" + TOPIC + "] group[" + PUSH_GROUP + "] consume mode[POP] popShareQueueNum[8]"),
            byBroker);
        String byCluster = mqadmin("setConsumeMode", "-n", ns, "-c", CLUSTER, "-g", PUSH_GROUP, "-t", TOPIC, "-m", "PULL");
        assertNoError(byCluster);
        assertTrue(byCluster.contains("set consume mode to " + addr + " success."), byCluster);
        String retry = mqadmin("setConsumeMode", "-n", ns, "-b", addr, "-g", PUSH_GROUP, "-t", "%RETRY%" + PUSH_GROUP,
            "-m", "POP");
        assertTrue(retry.contains("retry topic is not allowed to set mode"), retry);
    }

    // ---- broker configuration (25/26) ----

    @Test
    void brokerConfig_getBrokerConfig() {
        String out = mqadmin("getBrokerConfig", "-n", ns, "-b", addr);
        assertNoError(out);
        assertTrue(out.contains("============" + addr + "============"), out);
        assertTrue(out.lines().anyMatch(l -> l.matches("brokerClusterName\\s*=\\s*" + CLUSTER)), out);
        assertTrue(out.lines().anyMatch(l -> l.matches("brokerName\\s*=\\s*" + BROKER_NAME)), out);
    }

    @Test
    void brokerConfig_updateBrokerConfig() {
        // a key Basalt applies while running; one that needs a restart is refused (BrokerConfigAdminTest)
        String out = mqadmin("updateBrokerConfig", "-n", ns, "-b", addr, "-k", "slaveReadEnable", "-v", "true");
        assertNoError(out);
        assertTrue(out.contains("update broker config success, " + addr), out);
        String after = mqadmin("getBrokerConfig", "-n", ns, "-b", addr);
        assertTrue(after.lines().anyMatch(l -> l.matches("slaveReadEnable\\s*=\\s*true")), after);
        assertTrue(mqadmin("updateBrokerConfig", "-n", ns, "-b", addr, "-k", "slaveReadEnable", "-v", "false")
            .contains("update broker config success, " + addr));
    }

    @Test
    void brokerConfig_exportConfigs() throws Exception {
        Path dir = Files.createTempDirectory("ev-configs");
        try {
            String out = mqadmin("exportConfigs", "-n", ns, "-c", CLUSTER, "-f", dir.toString());
            assertNoError(out);
            String written = Files.readString(dir.resolve("configs.json"));
            assertTrue(written.contains("brokerClusterName"), written);
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    // ---- NameServer KV config, NameServer config, write permission ----

    @Test
    void namesrv_updateKvConfig_deleteKvConfig() {
        String put = mqadmin("updateKvConfig", "-n", ns, "-s", "EV_NS", "-k", "evKey", "-v", "evValue");
        assertNoError(put);
        assertTrue(put.contains("create or update kv config to namespace success"), put);
        String deleted = mqadmin("deleteKvConfig", "-n", ns, "-s", "EV_NS", "-k", "evKey");
        assertNoError(deleted);
        assertTrue(deleted.contains("delete kv config from namespace success"), deleted);
    }

    @Test
    void namesrv_updateOrderConf() {
        String put = mqadmin("updateOrderConf", "-n", ns, "-t", TOPIC, "-v", BROKER_NAME + ":2", "-m", "put");
        assertNoError(put);
        assertTrue(put.contains("update orderConf success. topic=[" + TOPIC + "], orderConf=[" + BROKER_NAME + ":2]"), put);
        String get = mqadmin("updateOrderConf", "-n", ns, "-t", TOPIC, "-m", "get");
        assertTrue(get.contains(BROKER_NAME + ":2"), get);
        String deleted = mqadmin("updateOrderConf", "-n", ns, "-t", TOPIC, "-m", "delete");
        assertTrue(deleted.contains("delete orderConf success. topic=[" + TOPIC + "]"), deleted);
    }

    @Test
    void namesrv_getNamesrvConfig_updateNamesrvConfig() {
        String got = mqadmin("getNamesrvConfig", "-n", ns);
        assertNoError(got);
        assertTrue(got.contains("============" + ns + "============"), got);
        assertTrue(got.lines().anyMatch(l -> l.matches("orderMessageEnable\\s*=\\s*false")), got);
        String updated = mqadmin("updateNamesrvConfig", "-n", ns, "-k", "orderMessageEnable", "-v", "true");
        assertNoError(updated);
        assertTrue(updated.contains("update name server config success"), updated);
        String after = mqadmin("getNamesrvConfig", "-n", ns);
        assertTrue(after.lines().anyMatch(l -> l.matches("orderMessageEnable\\s*=\\s*true")), after);
        mqadmin("updateNamesrvConfig", "-n", ns, "-k", "orderMessageEnable", "-v", "false");
    }

    @Test
    void namesrv_wipeWritePerm_addWritePerm() {
        String wiped = mqadmin("wipeWritePerm", "-n", ns, "-b", BROKER_NAME);
        assertNoError(wiped);
        assertTrue(wiped.contains("wipe write perm of broker[" + BROKER_NAME + "] in name server[" + ns + "] OK"), wiped);
        try {
            await().atMost(Duration.ofSeconds(30))
                .until(() -> mqadmin("topicRoute", "-n", ns, "-t", TOPIC).contains("\"perm\":4"));
        } finally {
            String added = mqadmin("addWritePerm", "-n", ns, "-b", BROKER_NAME);
            assertTrue(added.contains("add write perm of broker[" + BROKER_NAME + "] in name server[" + ns + "] OK"), added);
        }
        await().atMost(Duration.ofSeconds(30))
            .until(() -> mqadmin("topicRoute", "-n", ns, "-t", TOPIC).contains("\"perm\":6"));
    }

    // ---- offsets ----

    @Test
    void offsets_resetOffsetByTime() {
        String out = mqadmin("resetOffsetByTime", "-n", ns, "-g", RESET_GROUP, "-t", TOPIC, "-s", "0");
        assertNoError(out);
        assertTrue(out.contains("#brokerName") && out.contains("#queueId") && out.contains("#offset"), out);
        assertEquals(2, out.lines().filter(l -> l.startsWith(BROKER_NAME)).count(), out);
        await().atMost(Duration.ofSeconds(30)).until(() ->
            mqadmin("consumerProgress", "-n", ns, "-g", RESET_GROUP, "-t", TOPIC).contains("Diff Total: " + sent.size()));
    }

    @Test
    void offsets_skipAccumulatedMessage() {
        String out = mqadmin("skipAccumulatedMessage", "-n", ns, "-g", SKIP_GROUP, "-t", TOPIC);
        assertNoError(out);
        assertTrue(out.contains("#brokerName") && out.contains("#offset"), out);
        assertEquals(2, out.lines().filter(l -> l.startsWith(BROKER_NAME)).count(), out);
        await().atMost(Duration.ofSeconds(30)).until(() ->
            mqadmin("consumerProgress", "-n", ns, "-g", SKIP_GROUP, "-t", TOPIC).contains("Diff Total: 0"));
    }

    @Test
    void offsets_cloneGroupOffset() {
        String out = mqadmin("cloneGroupOffset", "-n", ns, "-s", PULLED_GROUP, "-d", "cg-ev-clone", "-t", TOPIC, "-o", "true");
        assertNoError(out);
        assertTrue(out.contains("clone group offset success. srcGroup[" + PULLED_GROUP + "], destGroup=[cg-ev-clone], topic["
            + TOPIC + "]"), out);
        // with -t: a group never online has no %RETRY% route, where consumerProgress looks first (as against RocketMQ)
        String progress = mqadmin("consumerProgress", "-n", ns, "-g", "cg-ev-clone", "-t", TOPIC);
        assertTrue(progress.contains(TOPIC), progress);
    }

    // ---- statistics ----

    @Test
    void stats_statsAll() {
        String out = mqadmin("statsAll", "-n", ns, "-t", TOPIC);
        assertNoError(out);
        assertTrue(out.contains("#Topic") && out.contains("#Consumer Group") && out.contains("#InTPS"), out);
        assertTrue(out.lines().anyMatch(l -> l.startsWith(TOPIC) && l.contains(PUSH_GROUP)), out);
    }

    @Test
    void stats_brokerConsumeStats() {
        String out = mqadmin("brokerConsumeStats", "-n", ns, "-b", addr);
        assertNoError(out);
        assertTrue(out.contains("#Topic") && out.contains("#Group") && out.contains("#Diff"), out);
        assertTrue(out.lines().anyMatch(l -> l.startsWith(TOPIC) && l.contains(PULLED_GROUP)), out);
    }

    @Test
    void stats_clusterListMoreStats() {
        String out = mqadmin("clusterList", "-n", ns, "-m");
        assertNoError(out);
        assertTrue(out.contains("#InTotalYest") && out.contains("#InTotalToday"), out);
        assertTrue(out.lines().anyMatch(l -> l.startsWith(CLUSTER) && l.contains(BROKER_NAME)), out);
    }

    @Test
    void stats_exportMetrics() throws Exception {
        Path dir = Files.createTempDirectory("ev-metrics");
        try {
            String out = mqadmin("exportMetrics", "-n", ns, "-c", CLUSTER, "-f", dir.toString());
            assertNoError(out);
            String written = Files.readString(dir.resolve("metrics.json"));
            assertTrue(written.contains("\"evaluateReport\"") && written.contains("\"" + BROKER_NAME + "\"")
                && written.contains("\"topicSize\""), written);
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    // ---- maintenance ----

    @Test
    void maintenance_cleanExpiredCQ() {
        String out = mqadmin("cleanExpiredCQ", "-n", ns, "-b", addr);
        assertNoError(out);
        assertTrue(out.lines().anyMatch(l -> l.trim().equals("success")), out);
    }

    @Test
    void maintenance_deleteExpiredCommitLog() {
        String out = mqadmin("deleteExpiredCommitLog", "-n", ns, "-b", addr);
        assertNoError(out);
        assertTrue(out.lines().anyMatch(l -> l.trim().equals("success")), out);
    }

    @Test
    void maintenance_cleanUnusedTopic() {
        String out = mqadmin("cleanUnusedTopic", "-n", ns, "-b", addr);
        assertNoError(out);
        assertTrue(out.lines().anyMatch(l -> l.trim().equals("success")), out);
    }

    @Test
    void maintenance_queryCq() {
        String out = mqadmin("queryCq", "-n", ns, "-t", TOPIC, "-q", "0", "-i", "0", "-c", "10", "-b", addr);
        assertNoError(out);
        assertTrue(out.contains("Queue data:") && out.contains("min: 0"), out);
        assertTrue(out.contains("physicOffset"), out);
    }
}
