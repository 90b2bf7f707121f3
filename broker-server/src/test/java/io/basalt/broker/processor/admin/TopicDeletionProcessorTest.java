package io.basalt.broker.processor.admin;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.testing.TestStores;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DELETE_TOPIC_IN_BROKER as RocketMQ 5.2.0 does it: config, offsets, POP retry topics and the store's queues. */
class TopicDeletionProcessorTest {
    private static final RequestContext CONTEXT = new RequestContext(null, new InetSocketAddress("127.0.0.1", 50000),
        new InetSocketAddress("127.0.0.1", 10911), 0);

    @TempDir
    Path dir;
    private MessageStore store;
    private TopicConfigManager topics;
    private ConsumerOffsetManager offsets;
    private TopicAdminProcessor topicAdmin;

    @BeforeEach
    void open() throws Exception {
        store = TestStores.start(TestStores.config(dir.resolve("store")).mappedFileSizeConsumeQueue(6000).build());
        topics = TopicConfigManager.open(dir.resolve("config"), true, 4);
        offsets = ConsumerOffsetManager.open(dir.resolve("config"));
        topicAdmin = new TopicAdminProcessor("broker-a", topics, offsets, store);
    }

    @AfterEach
    void close() {
        store.shutdown();
    }

    private void put(String topic, int queueId) {
        BrokerMessage msg = BrokerMessage.builder().topic(topic).queueId(queueId).body("m".getBytes())
            .properties(Map.of()).bornTimestamp(System.currentTimeMillis())
            .bornHost(new InetSocketAddress("127.0.0.1", 40000)).storeHost(new InetSocketAddress("127.0.0.1", 10911)).build();
        assertEquals(PutMessageStatus.PUT_OK, store.asyncPutMessage(msg).join().status());
    }

    private static TopicConfig config(String topic) {
        return new TopicConfig(topic, 1, 1, 6, "SINGLE_TAG", 0, false, Map.of());
    }

    @Test
    void deletingATopicDeletesItsOffsetsItsPopRetryTopicsAndItsQueues() throws Exception {
        String retryV2 = "%RETRY%g+TopicA";
        String retryV1 = "%RETRY%g_TopicA";
        for (String topic : new String[] {"TopicA", retryV2, retryV1, "TopicB"}) {
            topics.createOrUpdate(config(topic));
            put(topic, 0);
        }
        put("TopicA", 0);
        offsets.commitOffset("127.0.0.1", "g", "TopicA", 0, 1);
        offsets.commitOffset("127.0.0.1", "g", retryV2, 0, 1);
        offsets.commitOffset("127.0.0.1", "g", "TopicB", 0, 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("TopicA", 0) == 2
            && store.getMaxOffsetInQueue(retryV1, 0) == 1 && store.getMaxOffsetInQueue("TopicB", 0) == 1);

        RemotingCommand request = RemotingCommand.request(RequestCode.DELETE_TOPIC_IN_BROKER);
        request.putExtField("topic", "TopicA");
        assertEquals(ResponseCode.SUCCESS, topicAdmin.processRequest(CONTEXT, request).get().code());

        for (String topic : new String[] {"TopicA", retryV2, retryV1}) {
            assertNull(topics.get(topic), topic + " config");
            assertEquals(0, store.getMaxOffsetInQueue(topic, 0), topic + " queue");
        }
        assertEquals(Map.of(), offsets.queryOffsets("g", "TopicA"));
        assertEquals(Map.of(), offsets.queryOffsets("g", retryV2));
        assertEquals(Map.of(), ConsumerOffsetManager.open(dir.resolve("config")).queryOffsets("g", "TopicA"),
            "the offsets are gone from consumerOffset.json too");
        assertNotNull(topics.get("TopicB"));
        assertEquals(1, store.getMaxOffsetInQueue("TopicB", 0));
        assertEquals(Map.of(0, 1L), offsets.queryOffsets("g", "TopicB"));
    }
}
