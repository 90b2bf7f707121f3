package io.basalt.broker.processor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.basalt.broker.client.ClientManager;
import io.basalt.broker.client.QueueLockManager;
import io.basalt.broker.retry.RetryCounts;
import io.basalt.broker.client.ConsumerGroupInfo;
import io.basalt.broker.client.SubscriptionData;
import io.basalt.broker.filter.ConsumerFilters;
import io.basalt.broker.longpolling.PullRequestHoldService;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.subscription.SubscriptionGroupConfig;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.Perm;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.PutMessageTransform;
import io.basalt.store.StoreEnvironment;
import io.basalt.store.StoreConfig;
import io.basalt.store.testing.TestStores;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Send and pull processors on a real store: long polling wakes on arrival, bodies go out as mapped slices. */
class PullMessageProcessorTest {
    @TempDir
    Path dir;
    MessageStore store;
    PullRequestHoldService hold;
    SendMessageProcessor send;
    ConsumerSendMsgBackProcessor sendBack;
    PullMessageProcessor pull;
    SubscriptionGroupManager groups;
    TopicConfigManager topics;
    ConsumerOffsetManager offsets;
    ClientManager clients;
    ConsumerFilters filters;
    boolean enablePropertyFilter = true;
    /** What the replication layer would name as the slave to suggest (-1: none in sync). */
    volatile long slaveInSync = -1;
    final RequestContext context = new RequestContext(null, new InetSocketAddress("127.0.0.1", 40000),
        new InetSocketAddress("127.0.0.1", 10911), 0);

    @BeforeEach
    void open() throws Exception {
        StoreConfig config = TestStores.config(dir.resolve("store")).maxMessageSize(64 * 1024).build();
        // 10 MiB of "memory": a read more than 4 MiB (40 %) behind the log end counts as a disk read
        store = MessageStore.open(config, StoreEnvironment.system().withPhysicalMemoryBytes(10L << 20));
        hold = new PullRequestHoldService(store::getMaxOffsetInQueue, System::currentTimeMillis, 1000);
        store.setArrivingListener((topic, queueId, offset, tagsCode, ts) -> hold.notifyMessageArriving(topic, queueId, offset, tagsCode));
        store.load();
        store.start();
        hold.start();
        processorsWith(SubscriptionGroupManager.open(dir.resolve("config"), true));
    }

    private void processorsWith(SubscriptionGroupManager subscriptionGroups) throws Exception {
        groups = subscriptionGroups;
        topics = TopicConfigManager.open(dir.resolve("config"), true, 4);
        offsets = ConsumerOffsetManager.open(dir.resolve("config"));
        StoreHost host = new StoreHost("DefaultCluster", "broker-a", new InetSocketAddress("127.0.0.1", 10911));
        BrokerCounters counters = new BrokerCounters();
        send = new SendMessageProcessor(host, () -> true, 64 * 1024, store, topics, counters, subscriptionGroups,
            new QueueLockManager(60_000, System::currentTimeMillis), new RetryCounts());
        sendBack = new ConsumerSendMsgBackProcessor(store, topics, subscriptionGroups, host.address(), () -> true,
            new RetryCounts());
        clients = new ClientManager(120_000, System::currentTimeMillis);
        filters = new ConsumerFilters(enablePropertyFilter);
        pull = new PullMessageProcessor(store, topics, new ConsumerGroups(subscriptionGroups, clients, offsets),
            new LongPolling(hold, 20_000),
            // slaveReadEnable: a master may point consumers at its slave in sync
            SlaveReadPolicy.master(true, brokerId -> brokerId == slaveInSync), counters, filters);
    }

    @AfterEach
    void close() {
        hold.shutdown();
        store.shutdown();
    }

    private RemotingCommand sendRequest(String tag, String body) {
        return SendRequests.sendV2("T", "TAGS\u0001" + tag + "\u0002", body.getBytes(StandardCharsets.UTF_8));
    }

    private RemotingCommand pullRequest(long offset) {
        RemotingCommand r = RemotingCommand.request(RequestCode.LITE_PULL_MESSAGE);
        r.putExtField("consumerGroup", "cg");
        r.putExtField("topic", "T");
        r.putExtField("queueId", "0");
        r.putExtField("queueOffset", Long.toString(offset));
        r.putExtField("maxMsgNums", "32");
        r.putExtField("sysFlag", Integer.toString(PullMessageProcessor.FLAG_SUSPEND | PullMessageProcessor.FLAG_SUBSCRIPTION));
        r.putExtField("commitOffset", "0");
        r.putExtField("suspendTimeoutMillis", "20000");
        r.putExtField("subscription", "TagA");
        r.putExtField("subVersion", "0");
        r.putExtField("expressionType", "TAG");
        return r;
    }

    @Test
    void aHeldPullCompletesWhenAMatchingMessageLandsAndCarriesTheMappedRecords() throws Exception {
        assertEquals(ResponseCode.SUCCESS, send.processRequest(context, sendRequest("TagA", "first")).get().code());
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("T", 0) == 1);
        RemotingCommand found = pull.processRequest(context, pullRequest(0)).get();
        assertEquals(ResponseCode.SUCCESS, found.code());
        assertEquals("1", found.extFields().get("nextBeginOffset"));
        ByteBuffer[] slices = found.bodySlices();
        assertNotNull(slices, "the body is the mapped records, not a copy");
        assertEquals(1, slices.length);
        found.releaseBody();

        send.processRequest(context, sendRequest("TagB", "other tag")).get();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("T", 0) == 2);
        CompletableFuture<RemotingCommand> held = pull.processRequest(context, pullRequest(2));
        assertFalse(held.isDone(), "nothing new: the pull is held");
        send.processRequest(context, sendRequest("TagA", "second")).get();
        RemotingCommand woken = held.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(ResponseCode.SUCCESS, woken.code());
        assertEquals("3", woken.extFields().get("nextBeginOffset"));
        woken.releaseBody();
    }

    private void sendSql(int a, String region) throws Exception {
        RemotingCommand r = SendRequests.sendV2("T", "a\u0001" + a + "\u0002region\u0001" + region + "\u0002",
            (a + region).getBytes(StandardCharsets.UTF_8));
        assertEquals(ResponseCode.SUCCESS, send.processRequest(context, r).get().code());
    }

    private RemotingCommand sqlPull(long offset, String expression) {
        RemotingCommand r = pullRequest(offset);
        r.putExtField("subscription", expression);
        r.putExtField("expressionType", "SQL92");
        return r;
    }

    /** The bodies of the records a SUCCESS pull carries, in order; releases the response's body. */
    private static List<String> bodies(RemotingCommand found) {
        ByteBuffer all = ByteBuffer.allocate(Arrays.stream(found.bodySlices()).mapToInt(ByteBuffer::remaining).sum());
        Arrays.stream(found.bodySlices()).forEach(b -> all.put(b.duplicate()));
        found.releaseBody();
        all.flip();
        return MessageDecoder.decodesBatch(all, true, false, false).stream()
            .map(m -> new String(m.getBody(), StandardCharsets.UTF_8)).toList();
    }

    @Test
    void aSql92LitePullGetsExactlyTheMessagesItsExpressionMatches() throws Exception {
        for (int a = 0; a < 8; a++) {
            sendSql(a, a % 2 == 0 ? "eu" : "us");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("T", 0) == 8);
        RemotingCommand found = pull.processRequest(context, sqlPull(0, "a > 2 AND region = 'eu'")).get();
        assertEquals(ResponseCode.SUCCESS, found.code(), found.remark());
        assertEquals("8", found.extFields().get("nextBeginOffset"));
        assertEquals(List.of("4eu", "6eu"), bodies(found));

        RemotingCommand none = pull.processRequest(context, sqlPull(0, "a > 100")).get();
        assertEquals(ResponseCode.PULL_RETRY_IMMEDIATELY, none.code(), "all filtered: pull again from past them");
        assertEquals("8", none.extFields().get("nextBeginOffset"));
        RemotingCommand missing = pull.processRequest(context, sqlPull(0, "zone = 'eu'")).get();
        assertEquals(ResponseCode.PULL_RETRY_IMMEDIATELY, missing.code(), "a missing property matches nothing");
    }

    @Test
    void aMalformedSql92LitePullIsSubscriptionParseFailed() throws Exception {
        sendSql(1, "eu");
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("T", 0) == 1);
        RemotingCommand refused = pull.processRequest(context, sqlPull(0, "a > AND region")).get();
        assertEquals(ResponseCode.SUBSCRIPTION_PARSE_FAILED, refused.code());
        assertEquals("parse the consumer's subscription failed", refused.remark());
    }

    @Test
    void withoutPropertyFilterASql92PullIsRefusedNotFilteredByTag() throws Exception {
        enablePropertyFilter = false;
        processorsWith(groups);
        sendSql(5, "eu");
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("T", 0) == 1);
        RemotingCommand refused = pull.processRequest(context, sqlPull(0, "a > 2")).get();
        assertEquals(ResponseCode.SYSTEM_ERROR, refused.code());
        assertEquals("The broker does not support consumer to filter message by SQL92", refused.remark());
    }

    @Test
    void aPushPullFiltersByTheSql92SubscriptionItsGroupRegisteredByHeartbeat() throws Exception {
        for (int a = 0; a < 4; a++) {
            sendSql(a, "eu");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("T", 0) == 4);
        RemotingCommand push = RemotingCommand.request(RequestCode.PULL_MESSAGE);
        pullRequest(0).extFields().forEach(push::putExtField);
        push.putExtField("sysFlag", Integer.toString(PullMessageProcessor.FLAG_SUSPEND));
        push.putExtField("subVersion", "7");
        SubscriptionData subscription = SubscriptionData.of("T", "a >= 2", 7, "SQL92");
        clients.registerConsumer("cg", new ConsumerGroupInfo.Member("c1", "127.0.0.1:1", "CONSUME_PASSIVELY",
            "CLUSTERING", "CONSUME_FROM_LAST_OFFSET", System.currentTimeMillis(), null, "JAVA", 453), List.of(subscription));
        assertEquals(ResponseCode.FILTER_DATA_NOT_EXIST, pull.processRequest(context, push).get().code(),
            "no compiled filter for the group yet");
        filters.register("cg", SubscriptionData.of("T", "a >= 2", 6, "SQL92"));
        assertEquals(ResponseCode.FILTER_DATA_NOT_LATEST, pull.processRequest(context, push).get().code(),
            "the filter is older than the client's subscription");
        filters.register("cg", subscription);
        RemotingCommand found = pull.processRequest(context, push).get();
        assertEquals(ResponseCode.SUCCESS, found.code());
        assertEquals(List.of("2eu", "3eu"), bodies(found));
    }

    @Test
    void aHeldSql92PullIsAnsweredWithTheMatchingMessageThatArrives() throws Exception {
        sendSql(1, "eu");
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("T", 0) == 1);
        CompletableFuture<RemotingCommand> held = pull.processRequest(context, sqlPull(1, "a > 5"));
        assertFalse(held.isDone(), "nothing new: the pull is held");
        sendSql(9, "eu");
        RemotingCommand woken = held.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(ResponseCode.SUCCESS, woken.code());
        assertEquals(List.of("9eu"), bodies(woken));
    }

    @Test
    void aSendToATopicWithoutWritePermissionIsNoPermissionAndStoresNothing() throws Exception {
        topics.createOrUpdate(new TopicConfig("T", 4, 4, Perm.READ, "SINGLE_TAG", 0, false, Map.of()));
        RemotingCommand refused = send.processRequest(context, sendRequest("TagA", "read only")).get();
        assertEquals(ResponseCode.NO_PERMISSION, refused.code());
        assertTrue(refused.remark().contains("T") && refused.remark().contains("forbidden"), refused.remark());
        assertEquals(0, store.getMaxPhyOffset(), "nothing was stored");
    }

    @Test
    void propertiesOverTheLimitAreMessageIllegal() throws Exception {
        RemotingCommand request = sendRequest("TagA", "big properties");
        request.putExtField("i", "TAGS\u0001TagA\u0002k\u0001" + "v".repeat(Short.MAX_VALUE) + "\u0002");
        RemotingCommand refused = send.processRequest(context, request).get();
        assertEquals(ResponseCode.MESSAGE_ILLEGAL, refused.code());
        assertTrue(refused.remark().contains("properties length exceeds"), refused.remark());
        assertEquals(0, store.getMaxPhyOffset(), "nothing was stored");
    }

    @Test
    void aPullCarriesTheConsumersCommitOffsetToTheBroker() throws Exception {
        send.processRequest(context, sendRequest("TagA", "first")).get();
        send.processRequest(context, sendRequest("TagA", "second")).get();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("T", 0) == 2);
        RemotingCommand pullWithCommit = RemotingCommand.request(RequestCode.PULL_MESSAGE);
        pullRequest(1).extFields().forEach(pullWithCommit::putExtField);
        pullWithCommit.putExtField("sysFlag", Integer.toString(PullMessageProcessor.FLAG_COMMIT_OFFSET
            | PullMessageProcessor.FLAG_SUSPEND | PullMessageProcessor.FLAG_SUBSCRIPTION));
        pullWithCommit.putExtField("commitOffset", "1");
        assertEquals(-1, offsets.queryOffset("cg", "T", 0), "nothing committed before the pull");
        RemotingCommand found = pull.processRequest(context, pullWithCommit).get();
        assertEquals(ResponseCode.SUCCESS, found.code());
        found.releaseBody();
        assertEquals(1, offsets.queryOffset("cg", "T", 0), "the offset the pull carried is the group's committed offset");
    }

    @Test
    void aPullFarBehindTheLogEndIsToldToReadFromTheSlaveInSync() throws Exception {
        char[] filler = new char[60 * 1024];
        java.util.Arrays.fill(filler, 'x');
        for (int i = 0; i < 100; i++) { // about 6 MiB, more than the 4 MiB "in memory"
            assertEquals(ResponseCode.SUCCESS, send.processRequest(context, sendRequest("TagA", new String(filler))).get().code());
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("T", 0) == 100);
        RemotingCommand fromDisk = pull.processRequest(context, pullRequest(0)).get();
        assertEquals(ResponseCode.SUCCESS, fromDisk.code());
        assertEquals("0", fromDisk.extFields().get("suggestWhichBrokerId"), "no slave in sync: keep reading here");
        fromDisk.releaseBody();

        slaveInSync = 1;
        RemotingCommand suggested = pull.processRequest(context, pullRequest(0)).get();
        assertEquals("1", suggested.extFields().get("suggestWhichBrokerId"), "a disk read goes to the slave in sync");
        suggested.releaseBody();
        RemotingCommand recent = pull.processRequest(context, pullRequest(99)).get();
        assertEquals("0", recent.extFields().get("suggestWhichBrokerId"), "a read near the end stays on the master");
        recent.releaseBody();
    }

    /** Sends the record at CommitLog {@code offset} back for group cg, as a consumer that failed it does. */
    private RemotingCommand sendBack(long offset) throws Exception {
        RemotingCommand r = RemotingCommand.request(RequestCode.CONSUMER_SEND_MSG_BACK);
        r.putExtField("offset", Long.toString(offset));
        r.putExtField("group", "cg");
        r.putExtField("delayLevel", "0");
        return sendBack.processRequest(context, r).get();
    }

    @Test
    void aMessageSentBackGoesToTheGroupsRetryQueuesUntilItsRetryMaxTimesThenToTheDlq() throws Exception {
        groups.createOrUpdate(SubscriptionGroupConfig.defaults("cg").withRetryQueueNums(3).withRetryMaxTimes(2));
        assertEquals(ResponseCode.SUCCESS, send.processRequest(context, sendRequest("TagA", "failing")).get().code());
        long offset = 0;
        for (int retry = 1; retry <= 2; retry++) {
            long next = store.getMaxPhyOffset();
            assertEquals(ResponseCode.SUCCESS, sendBack(offset).code());
            assertEquals(retry, store.lookMessageByOffset(next).reconsumeTimes());
            assertEquals("%RETRY%cg", store.lookMessageByOffset(next).topic());
            offset = next;
        }
        assertEquals(3, topics.get("%RETRY%cg").writeQueueNums(), "the retry topic has the group's retryQueueNums");
        long next = store.getMaxPhyOffset();
        assertEquals(ResponseCode.SUCCESS, sendBack(offset).code());
        assertEquals("%DLQ%cg", store.lookMessageByOffset(next).topic(), "retried retryMaxTimes (2) times: dead letter");
    }

    @Test
    void aSendRefusedByAStepOfThePutPathIsAnsweredWithItsReason() throws Exception {
        store.addPutTransform(m -> "TagA".equals(m.tags())
            ? PutMessageTransform.Decision.refuse(PutMessageStatus.MESSAGE_ILLEGAL, "delay level 99 is out of range")
            : PutMessageTransform.Decision.append(m));

        RemotingCommand refused = send.processRequest(context, sendRequest("TagA", "x")).get();
        RemotingCommand passed = send.processRequest(context, sendRequest("TagB", "y")).get();

        assertEquals(ResponseCode.MESSAGE_ILLEGAL, refused.code());
        assertEquals("delay level 99 is out of range", refused.remark());
        assertEquals(ResponseCode.SUCCESS, passed.code());
        assertEquals("0", passed.extFields().get("queueOffset"), "the refused send took no queue offset");
    }

    @Test
    void aBrokerThatAcceptsNoWritesRefusesASendBackAndWritesNothing() throws Exception {
        assertEquals(ResponseCode.SUCCESS, send.processRequest(context, sendRequest("TagA", "failing")).get().code());
        ConsumerSendMsgBackProcessor onASlave = new ConsumerSendMsgBackProcessor(store, topics, groups,
            new InetSocketAddress("127.0.0.1", 10911), () -> false, new RetryCounts());
        long end = store.getMaxPhyOffset();
        RemotingCommand r = RemotingCommand.request(RequestCode.CONSUMER_SEND_MSG_BACK);
        r.putExtField("offset", "0");
        r.putExtField("group", "cg");
        r.putExtField("delayLevel", "0");

        RemotingCommand refused = onASlave.processRequest(context, r).get();

        // RocketMQ's NO_PERMISSION: the official client answers any non-SUCCESS code by resending the message as a
        // normal send to %RETRY%<group>, which its route sends to the master
        assertEquals(ResponseCode.NO_PERMISSION, refused.code(), "the client resends through the master");
        assertEquals(end, store.getMaxPhyOffset(), "nothing is written into a replica's log");
    }

    @Test
    void aPullRecordsItsUnknownGroupWithRocketMqsDefaults() throws Exception {
        send.processRequest(context, sendRequest("TagA", "first")).get();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("T", 0) == 1);
        RemotingCommand found = pull.processRequest(context, pullRequest(0)).get();
        assertEquals(ResponseCode.SUCCESS, found.code());
        found.releaseBody();
        assertEquals(SubscriptionGroupConfig.defaults("cg"), groups.get("cg").orElseThrow());
    }

    @Test
    void aDisabledGroupsPullIsRefusedWithNoPermissionAndGetsNoMessages() throws Exception {
        send.processRequest(context, sendRequest("TagA", "first")).get();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("T", 0) == 1);
        groups.createOrUpdate(SubscriptionGroupConfig.defaults("cg").withConsumeEnable(false));

        RemotingCommand refused = pull.processRequest(context, pullRequest(0)).get();
        assertEquals(ResponseCode.NO_PERMISSION, refused.code());
        assertEquals("subscription group no permission, cg", refused.remark());
        assertNull(refused.bodySlices(), "no records go out");
        assertEquals(Integer.toString(PullMessageProcessor.GROUP_FORBIDDEN), refused.extFields().get("forbiddenType"));

        groups.createOrUpdate(SubscriptionGroupConfig.defaults("cg"));
        RemotingCommand found = pull.processRequest(context, pullRequest(0)).get();
        assertEquals(ResponseCode.SUCCESS, found.code(), "enabled again, the group consumes");
        found.releaseBody();
    }

    private void heartbeatAs(String messageModel) {
        clients.registerConsumer("cg", new io.basalt.broker.client.ConsumerGroupInfo.Member("127.0.0.1@c1",
            "/127.0.0.1:40000", "CONSUME_PASSIVELY", messageModel, "CONSUME_FROM_LAST_OFFSET", System.currentTimeMillis(),
            null, "JAVA", 0), java.util.List.of(io.basalt.broker.client.SubscriptionData.ofTags("T", "TagA", 0)));
    }

    @Test
    void aBroadcastingGroupWithBroadcastDisabledIsRefusedAndAClusteringOneReads() throws Exception {
        send.processRequest(context, sendRequest("TagA", "first")).get();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("T", 0) == 1);
        SubscriptionGroupConfig d = SubscriptionGroupConfig.defaults("cg");
        groups.createOrUpdate(new SubscriptionGroupConfig("cg", true, true, false, false, d.retryQueueNums(),
            d.retryMaxTimes(), d.groupRetryPolicy(), 0, 1, true, 0, 15, java.util.Set.of(), Map.of()));
        heartbeatAs("BROADCASTING");

        RemotingCommand refused = pull.processRequest(context, pullRequest(0)).get();
        assertEquals(ResponseCode.NO_PERMISSION, refused.code());
        assertEquals("the consumer group[cg] can not consume by broadcast way", refused.remark());
        assertNull(refused.bodySlices(), "no records go out");
        assertEquals(Integer.toString(BroadcastPermission.BROADCASTING_DISABLE_FORBIDDEN),
            refused.extFields().get("forbiddenType"));

        heartbeatAs("CLUSTERING");
        RemotingCommand found = pull.processRequest(context, pullRequest(0)).get();
        assertEquals(ResponseCode.SUCCESS, found.code(), "the group's latest heartbeat decides");
        found.releaseBody();

        groups.createOrUpdate(d);
        heartbeatAs("BROADCASTING");
        RemotingCommand allowed = pull.processRequest(context, pullRequest(0)).get();
        assertEquals(ResponseCode.SUCCESS, allowed.code(), "consumeBroadcastEnable=true (the default) lets it read");
        allowed.releaseBody();
    }

    @Test
    void aGroupForbiddenToReadATopicIsRefusedThereAndReadsItsOtherTopics() throws Exception {
        send.processRequest(context, sendRequest("TagA", "first")).get();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("T", 0) == 1);
        groups.setReadForbidden("cg", "T", true);
        groups.setReadForbidden("cg", "Other", false);

        RemotingCommand refused = pull.processRequest(context, pullRequest(0)).get();
        assertEquals(ResponseCode.NO_PERMISSION, refused.code());
        assertEquals("the consumer group[cg] is forbidden for topic[T]", refused.remark());
        assertNull(refused.bodySlices(), "no records go out");
        assertEquals(Integer.toString(PullMessageProcessor.SUBSCRIPTION_FORBIDDEN), refused.extFields().get("forbiddenType"));
        assertFalse(groups.isReadForbidden("cg", "Other"));
        assertFalse(groups.isReadForbidden("another-group", "T"), "the table is per group");

        groups.setReadForbidden("cg", "T", false);
        RemotingCommand found = pull.processRequest(context, pullRequest(0)).get();
        assertEquals(ResponseCode.SUCCESS, found.code(), "allowed again, the group reads the topic");
        found.releaseBody();
    }

    @Test
    void withoutAutoCreationAnUnknownGroupsPullIsRefused() throws Exception {
        processorsWith(SubscriptionGroupManager.open(dir.resolve("other-config"), false));
        RemotingCommand refused = pull.processRequest(context, pullRequest(0)).get();
        assertEquals(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, refused.code());
        assertTrue(refused.remark().contains("[cg]"), refused.remark());
        assertTrue(groups.get("cg").isEmpty());
    }
}
