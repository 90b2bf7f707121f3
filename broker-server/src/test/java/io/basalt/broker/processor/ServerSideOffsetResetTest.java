package io.basalt.broker.processor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.basalt.broker.client.ClientManager;
import io.basalt.broker.client.QueueLockManager;
import io.basalt.broker.filter.ConsumerFilters;
import io.basalt.broker.longpolling.PullRequestHoldService;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.processor.admin.OffsetResetProcessor;
import io.basalt.broker.protocol.MessageQueue;
import io.basalt.broker.protocol.ResetOffsetBody;
import io.basalt.broker.retry.RetryCounts;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.MessageStore;
import io.basalt.store.StoreConfig;
import io.basalt.store.StoreEnvironment;
import io.basalt.store.testing.TestStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * INVOKE_BROKER_TO_RESET_OFFSET with {@code useServerSideResetOffset=true}, on a real store: the committed offset is
 * overwritten, commits of the queue are ignored until a pull delivered the reset as PULL_OFFSET_MOVED, and the
 * pending reset survives a reopen of the offset files; RocketMQ's refusals.
 */
class ServerSideOffsetResetTest {
    @TempDir
    Path dir;
    MessageStore store;
    PullRequestHoldService hold;
    SendMessageProcessor send;
    PullMessageProcessor pull;
    ConsumerOffsetProcessor offsetRequests;
    ConsumerOffsetManager offsets;
    SubscriptionGroupManager groups;
    boolean slave;
    OffsetResetProcessor reset;
    final RequestContext context = new RequestContext(null, new InetSocketAddress("127.0.0.1", 40000),
        new InetSocketAddress("127.0.0.1", 10911), 0);

    @BeforeEach
    void open() throws Exception {
        StoreConfig config = TestStores.config(dir.resolve("store")).maxMessageSize(64 * 1024).build();
        store = MessageStore.open(config, StoreEnvironment.system());
        hold = new PullRequestHoldService(store::getMaxOffsetInQueue, System::currentTimeMillis, 1000);
        store.load();
        store.start();
        hold.start();
        groups = SubscriptionGroupManager.open(dir.resolve("config"), true);
        TopicConfigManager topics = TopicConfigManager.open(dir.resolve("config"), true, 4);
        offsets = ConsumerOffsetManager.open(dir.resolve("config"));
        StoreHost host = new StoreHost("DefaultCluster", "broker-a", new InetSocketAddress("127.0.0.1", 10911));
        BrokerCounters counters = new BrokerCounters();
        send = new SendMessageProcessor(host, () -> true, 64 * 1024, store, topics, counters, groups,
            new QueueLockManager(60_000, System::currentTimeMillis), new RetryCounts());
        ClientManager clients = new ClientManager(120_000, System::currentTimeMillis);
        pull = new PullMessageProcessor(store, topics, new ConsumerGroups(groups, clients, offsets),
            new LongPolling(hold, 20_000), SlaveReadPolicy.master(false, id -> false), counters, new ConsumerFilters(false));
        offsetRequests = new ConsumerOffsetProcessor(store, topics, offsets);
        reset = new OffsetResetProcessor("broker-a", true, () -> slave, topics, groups, offsets, clients, store, hold::wakeQueue);
        for (int i = 0; i < 5; i++) {
            assertEquals(ResponseCode.SUCCESS, send.processRequest(context, SendRequests.sendV2("T", "TAGS\u0001TagA\u0002",
                ("m" + i).getBytes(StandardCharsets.UTF_8))).get().code());
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("T", 0) == 5);
        groups.findOrAutoCreate("cg");
    }

    @AfterEach
    void close() {
        hold.shutdown();
        store.shutdown();
    }

    private RemotingCommand pull(long offset, long commitOffset) throws Exception {
        RemotingCommand response = pullAsync(offset, commitOffset, false).get();
        response.releaseBody();
        return response;
    }

    private CompletableFuture<RemotingCommand> pullAsync(long offset, long commitOffset, boolean suspend) {
        RemotingCommand r = RemotingCommand.request(RequestCode.PULL_MESSAGE);
        r.putExtField("consumerGroup", "cg");
        r.putExtField("topic", "T");
        r.putExtField("queueId", "0");
        r.putExtField("queueOffset", Long.toString(offset));
        r.putExtField("maxMsgNums", "32");
        r.putExtField("sysFlag", Integer.toString(PullMessageProcessor.FLAG_COMMIT_OFFSET | PullMessageProcessor.FLAG_SUBSCRIPTION
            | (suspend ? PullMessageProcessor.FLAG_SUSPEND : 0)));
        r.putExtField("commitOffset", Long.toString(commitOffset));
        r.putExtField("suspendTimeoutMillis", suspend ? "20000" : "0");
        r.putExtField("subscription", "*");
        r.putExtField("subVersion", "0");
        r.putExtField("expressionType", "TAG");
        return pull.processRequest(context, r);
    }

    private RemotingCommand commit(long offset) throws Exception {
        RemotingCommand r = RemotingCommand.request(RequestCode.UPDATE_CONSUMER_OFFSET);
        r.putExtField("consumerGroup", "cg");
        r.putExtField("topic", "T");
        r.putExtField("queueId", "0");
        r.putExtField("commitOffset", Long.toString(offset));
        return offsetRequests.processRequest(context, r).get();
    }

    private RemotingCommand resetRequest(String topic, String group, Integer queueId, Long offset, long timestamp) throws Exception {
        RemotingCommand r = RemotingCommand.request(RequestCode.INVOKE_BROKER_TO_RESET_OFFSET);
        r.putExtField("topic", topic);
        r.putExtField("group", group);
        if (queueId != null) {
            r.putExtField("queueId", queueId.toString());
        }
        if (offset != null) {
            r.putExtField("offset", offset.toString());
        }
        r.putExtField("timestamp", Long.toString(timestamp));
        r.putExtField("isForce", "true");
        return reset.processRequest(context, r).get();
    }

    @Test
    void theNextPullDeliversTheResetAndCommitsBeforeItAreIgnored() throws Exception {
        assertEquals(ResponseCode.SUCCESS, commit(5).code());
        RemotingCommand answer = resetRequest("T", "cg", 0, 2L, -1);
        assertEquals(ResponseCode.SUCCESS, answer.code(), answer.remark());
        assertEquals(Map.of(new MessageQueue("T", "broker-a", 0), 2L), ResetOffsetBody.decode(answer.body()).offsetTable());
        assertEquals(2, offsets.queryOffset("cg", "T", 0), "the committed offset is overwritten");

        RemotingCommand ignored = commit(5);
        assertEquals(ResponseCode.SUCCESS, ignored.code());
        assertEquals("Offset has been previously reset", ignored.remark());
        assertEquals(2, offsets.queryOffset("cg", "T", 0));

        RemotingCommand moved = pull(5, 5);
        assertEquals(ResponseCode.PULL_OFFSET_MOVED, moved.code());
        assertEquals("2", moved.extFields().get("nextBeginOffset"));
        assertEquals(2, offsets.queryOffset("cg", "T", 0), "the pull's piggy-backed commit of the old position is not stored");
        assertFalse(offsets.resets().isPending("T", "cg", 0));

        RemotingCommand found = pull(2, 2);
        assertEquals(ResponseCode.SUCCESS, found.code());
        assertEquals("5", found.extFields().get("nextBeginOffset"));
        assertEquals(ResponseCode.SUCCESS, commit(4).code());
        assertEquals(4, offsets.queryOffset("cg", "T", 0), "commits count again once the reset was delivered");
    }

    @Test
    void aResetByTimestampCoversEveryReadQueueAndAPendingResetSurvivesAReopen() throws Exception {
        RemotingCommand answer = resetRequest("T", "cg", null, null, 0);
        assertEquals(ResponseCode.SUCCESS, answer.code(), answer.remark());
        Map<MessageQueue, Long> table = ResetOffsetBody.decode(answer.body()).offsetTable();
        assertEquals(4, table.size());
        assertEquals(0L, table.get(new MessageQueue("T", "broker-a", 0)));
        assertEquals(-1, offsets.queryOffset("cg", "T", 0), "a group without offsets on the topic gets none (RocketMQ's rule)");

        ConsumerOffsetManager reopened = ConsumerOffsetManager.open(dir.resolve("config"));
        assertTrue(reopened.resets().isPending("T", "cg", 0));
        assertEquals(0L, reopened.resets().take("T", "cg", 0));
        assertNull(ConsumerOffsetManager.open(dir.resolve("config")).resets().take("T", "cg", 0), "the take is written too");

        // skipAccumulatedMessage's reset: timestamp -1 is the queue's end
        answer = resetRequest("T", "cg", 0, null, -1);
        assertEquals(5L, ResetOffsetBody.decode(answer.body()).offsetTable().get(new MessageQueue("T", "broker-a", 0)));
    }

    @Test
    void aPullHeldAtTheQueuesEndLearnsOfTheResetAtOnce() throws Exception {
        CompletableFuture<RemotingCommand> held = pullAsync(5, 5, true);
        await().atMost(Duration.ofSeconds(10)).until(() -> hold.heldCount() == 1);
        assertFalse(held.isDone());
        assertEquals(ResponseCode.SUCCESS, resetRequest("T", "cg", 0, 1L, -1).code());
        RemotingCommand moved = held.get(10, TimeUnit.SECONDS);
        assertEquals(ResponseCode.PULL_OFFSET_MOVED, moved.code());
        assertEquals("1", moved.extFields().get("nextBeginOffset"));
    }

    @Test
    void theClientSidePathNeedsAnOnlineConsumerAndACommittedOffset() throws Exception {
        OffsetResetProcessor clientSide = new OffsetResetProcessor("broker-a", false, () -> false,
            TopicConfigManager.open(dir.resolve("config"), true, 4), groups, offsets,
            new ClientManager(120_000, System::currentTimeMillis), store, hold::wakeQueue);
        RemotingCommand r = RemotingCommand.request(RequestCode.INVOKE_BROKER_TO_RESET_OFFSET);
        r.putExtField("topic", "T");
        r.putExtField("group", "cg");
        r.putExtField("timestamp", "0");
        r.putExtField("isForce", "true");
        RemotingCommand neverConsumed = clientSide.processRequest(context, r).get();
        assertEquals(ResponseCode.SYSTEM_ERROR, neverConsumed.code());
        assertEquals("The consumer group <cg> not exist: it has no committed offset of topic T", neverConsumed.remark());

        assertEquals(ResponseCode.SUCCESS, commit(5).code());
        RemotingCommand offline = clientSide.processRequest(context, r).get();
        assertEquals(ResponseCode.CONSUMER_NOT_ONLINE, offline.code());
        assertEquals("Consumer not online, so can not reset offset, Group: cg Topic: T Timestamp: 0", offline.remark());
        assertEquals(5, offsets.queryOffset("cg", "T", 0), "the client-side path does not touch committed offsets");
        assertFalse(offsets.resets().isPending("T", "cg", 0));
    }

    @Test
    void theClientSidePathRefusesAGroupWithGrpcConsumersAndSendsNothing() throws Exception {
        ClientManager clients = new ClientManager(120_000, System::currentTimeMillis);
        OffsetResetProcessor clientSide = new OffsetResetProcessor("broker-a", false, () -> false,
            TopicConfigManager.open(dir.resolve("config"), true, 4), groups, offsets, clients, store, hold::wakeQueue);
        java.util.concurrent.atomic.AtomicInteger sent = new java.util.concurrent.atomic.AtomicInteger();
        io.basalt.remoting.processor.RemotingConnection grpc = new io.basalt.remoting.processor.RemotingConnection() {
            @Override
            public java.net.SocketAddress remoteAddress() {
                return new java.net.InetSocketAddress("127.0.0.1", 1);
            }

            @Override
            public boolean isActive() {
                return true;
            }

            @Override
            public String protocol() {
                return "grpc";
            }

            @Override
            public CompletableFuture<RemotingCommand> invoke(RemotingCommand request, long timeoutMs) {
                sent.incrementAndGet();
                return new CompletableFuture<>();
            }

            @Override
            public CompletableFuture<Void> invokeOneway(RemotingCommand request) {
                sent.incrementAndGet();
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public void close() {
            }
        };
        clients.registerConsumer("cg", new io.basalt.broker.client.ConsumerGroupInfo.Member("grpc-1", "g",
            "CONSUME_PASSIVELY", "CLUSTERING", "CONSUME_FROM_LAST_OFFSET", System.currentTimeMillis(), grpc, "JAVA",
            400), java.util.List.of());
        assertEquals(ResponseCode.SUCCESS, commit(5).code());
        RemotingCommand r = RemotingCommand.request(RequestCode.INVOKE_BROKER_TO_RESET_OFFSET);
        r.putExtField("topic", "T");
        r.putExtField("group", "cg");
        r.putExtField("timestamp", "0");
        r.putExtField("isForce", "true");
        RemotingCommand refused = clientSide.processRequest(context, r).get();
        assertEquals(ResponseCode.SYSTEM_ERROR, refused.code());
        assertTrue(refused.remark().contains("gRPC consumers [grpc-1]"), refused.remark());
        assertEquals(0, sent.get());
        assertEquals(5, offsets.queryOffset("cg", "T", 0));
    }

    @Test
    void refusalsAreRocketMqs() throws Exception {
        RemotingCommand noTopic = resetRequest("Nope", "cg", null, null, 0);
        assertEquals(ResponseCode.TOPIC_NOT_EXIST, noTopic.code());
        assertEquals("Topic Nope does not exist", noTopic.remark());
        RemotingCommand noGroup = resetRequest("T", "unknown-group", null, null, 0);
        assertEquals(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, noGroup.code());
        assertEquals("Group unknown-group does not exist", noGroup.remark());
        RemotingCommand outOfRange = resetRequest("T", "cg", 0, 9L, 0);
        assertEquals(ResponseCode.SYSTEM_ERROR, outOfRange.code());
        assertEquals("Target offset 9 not in consume queue range [0-5]", outOfRange.remark());
        assertFalse(offsets.resets().isPending("T", "cg", 0));
        slave = true;
        RemotingCommand onSlave = resetRequest("T", "cg", null, null, 0);
        assertEquals(ResponseCode.SYSTEM_ERROR, onSlave.code());
        assertEquals("Can not reset offset in slave broker", onSlave.remark());
    }
}
