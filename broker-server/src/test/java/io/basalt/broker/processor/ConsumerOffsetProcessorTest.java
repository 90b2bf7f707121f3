package io.basalt.broker.processor;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;

import io.basalt.broker.client.QueueLockManager;
import io.basalt.broker.offset.ConsumerOffsetManager;
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

/** QUERY_CONSUMER_OFFSET for a group without a committed offset: RocketMQ's "offset 0 still in memory" rule. */
class ConsumerOffsetProcessorTest {
    /** The store believes the machine has this much memory; 40 % of it (40,000 bytes) counts as in memory. */
    private static final long PHYSICAL_MEMORY = 100_000;

    @TempDir
    Path dir;
    MessageStore store;
    SendMessageProcessor send;
    ConsumerOffsetProcessor offsets;
    ConsumerOffsetManager committed;
    final RequestContext context = new RequestContext(null, new InetSocketAddress("127.0.0.1", 40000),
        new InetSocketAddress("127.0.0.1", 10911), 0);

    @BeforeEach
    void open() throws Exception {
        StoreConfig config = TestStores.config(dir.resolve("store")).maxMessageSize(64 * 1024).build();
        store = MessageStore.open(config, StoreEnvironment.system().withPhysicalMemoryBytes(PHYSICAL_MEMORY));
        store.load();
        store.start();
        TopicConfigManager topics = TopicConfigManager.open(dir.resolve("config"), true, 4);
        committed = ConsumerOffsetManager.open(dir.resolve("config"));
        StoreHost host = new StoreHost("DefaultCluster", "broker-a", new InetSocketAddress("127.0.0.1", 10911));
        send = new SendMessageProcessor(host, () -> true, 64 * 1024, store, topics, new BrokerCounters(),
            SubscriptionGroupManager.open(dir.resolve("groups"), true), new QueueLockManager(60_000, System::currentTimeMillis),
            new RetryCounts());
        offsets = new ConsumerOffsetProcessor(store, topics, committed);
    }

    @AfterEach
    void close() {
        store.shutdown();
    }

    private void sendTo(String topic, int bodyBytes) throws Exception {
        RemotingCommand request = SendRequests.sendV2(topic, "", new byte[bodyBytes]);
        assertEquals(ResponseCode.SUCCESS, send.processRequest(context, request).get().code());
    }

    private RemotingCommand query(String group) throws Exception {
        RemotingCommand r = RemotingCommand.request(RequestCode.QUERY_CONSUMER_OFFSET);
        r.putExtField("consumerGroup", group);
        r.putExtField("topic", "T");
        r.putExtField("queueId", "0");
        return offsets.processRequest(context, r).get();
    }

    @Test
    void aNewGroupStartsAtZeroWhileTheFirstMessageIsInMemoryAndIsToldNotFoundOnceItIsNot() throws Exception {
        sendTo("T", 100);
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("T", 0) == 1);
        RemotingCommand young = query("cg-new");
        assertEquals(ResponseCode.SUCCESS, young.code());
        assertEquals("0", young.extFields().get("offset"));

        // 50 KB more in the CommitLog: T's offset 0 is now more than 40 % of the memory behind the end
        sendTo("Other", 50_000);
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("Other", 0) == 1);
        RemotingCommand old = query("cg-new");
        assertEquals(ResponseCode.QUERY_NOT_FOUND, old.code());

        // a committed offset is answered whatever the memory says
        committed.commitOffset(null, "cg-old", "T", 0, 1);
        RemotingCommand known = query("cg-old");
        assertEquals(ResponseCode.SUCCESS, known.code());
        assertEquals("1", known.extFields().get("offset"));
    }

    @Test
    void anEmptyQueueAndSetZeroIfNotFoundFalseAreNotFound() throws Exception {
        assertEquals(ResponseCode.QUERY_NOT_FOUND, query("cg").code(), "no message at offset 0 yet");
        sendTo("T", 100);
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("T", 0) == 1);
        RemotingCommand r = RemotingCommand.request(RequestCode.QUERY_CONSUMER_OFFSET);
        r.putExtField("consumerGroup", "cg");
        r.putExtField("topic", "T");
        r.putExtField("queueId", "0");
        r.putExtField("setZeroIfNotFound", "false");
        assertEquals(ResponseCode.QUERY_NOT_FOUND, offsets.processRequest(context, r).get().code());
    }
}
