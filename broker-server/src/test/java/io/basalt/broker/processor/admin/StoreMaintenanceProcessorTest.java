package io.basalt.broker.processor.admin;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.basalt.broker.client.ClientManager;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.QueueEntry;
import io.basalt.store.testing.TestStores;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CLEAN_UNUSED_TOPIC, QUERY_CONSUME_QUEUE and the two refused maintenance requests. */
class StoreMaintenanceProcessorTest {
    private static final RequestContext CONTEXT = new RequestContext(null, new InetSocketAddress("127.0.0.1", 50000),
        new InetSocketAddress("127.0.0.1", 10911), 0);

    @TempDir
    Path dir;
    private MessageStore store;
    private TopicConfigManager topics;
    private StoreMaintenanceProcessor processor;

    @BeforeEach
    void open() throws Exception {
        store = TestStores.start(TestStores.config(dir.resolve("store")).mappedFileSizeConsumeQueue(6000).build());
        topics = TopicConfigManager.open(dir.resolve("config"), true, 4);
        processor = new StoreMaintenanceProcessor(store, topics, new ClientManager(120_000, System::currentTimeMillis));
    }

    @AfterEach
    void close() {
        store.shutdown();
    }

    private void put(String topic) {
        BrokerMessage msg = BrokerMessage.builder().topic(topic).queueId(0).body("m".getBytes())
            .properties(Map.of()).bornTimestamp(System.currentTimeMillis())
            .bornHost(new InetSocketAddress("127.0.0.1", 40000)).storeHost(new InetSocketAddress("127.0.0.1", 10911)).build();
        assertEquals(PutMessageStatus.PUT_OK, store.asyncPutMessage(msg).join().status());
    }

    private RemotingCommand call(RemotingCommand request) {
        return processor.processRequest(CONTEXT, request).join();
    }

    @Test
    void cleanUnusedTopicDeletesTheQueuesOfTopicsWithoutConfigButSystemAndLmqTopics() throws Exception {
        topics.createOrUpdate(new TopicConfig("Known", 1, 1, 6, "SINGLE_TAG", 0, false, Map.of()));
        for (String topic : List.of("Known", "Orphan", "rmq_sys_something", "%LMQ%abc")) {
            put(topic);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> store.queueIdsByTopic().size() == 4);

        RemotingCommand response = call(RemotingCommand.request(RequestCode.CLEAN_UNUSED_TOPIC));
        assertEquals(ResponseCode.SUCCESS, response.code());
        assertEquals(List.of("%LMQ%abc", "Known", "rmq_sys_something"), List.copyOf(store.queueIdsByTopic().keySet()));
        assertEquals(1, store.getMaxOffsetInQueue("Known", 0));
    }

    @Test
    void queryConsumeQueueAnswersTheEntriesFromTheIndex() throws Exception {
        for (int i = 0; i < 3; i++) {
            put("Known");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> store.getMaxOffsetInQueue("Known", 0) == 3);
        List<QueueEntry> entries = store.readQueueEntries("Known", 0, 0, 3);

        RemotingCommand request = RemotingCommand.request(RequestCode.QUERY_CONSUME_QUEUE);
        request.putExtField("topic", "Known");
        request.putExtField("queueId", "0");
        request.putExtField("index", "1");
        request.putExtField("count", "5");
        request.putExtField("consumerGroup", "g");
        RemotingCommand response = call(request);
        assertEquals(ResponseCode.SUCCESS, response.code());
        JsonNode body = new ObjectMapper().readTree(response.body());
        assertEquals(3, body.get("maxQueueIndex").asLong());
        assertEquals(0, body.get("minQueueIndex").asLong());
        assertEquals("g@Known is not online!", body.get("filterData").asText());
        assertEquals(2, body.get("queueData").size(), "from index 1 to the queue's end");
        for (int i = 0; i < 2; i++) {
            JsonNode e = body.get("queueData").get(i);
            assertEquals(entries.get(i + 1).physicalOffset(), e.get("physicOffset").asLong());
            assertEquals(entries.get(i + 1).size(), e.get("physicSize").asInt());
            assertEquals(entries.get(i + 1).tagsCode(), e.get("tagsCode").asLong());
        }

        request.putExtField("queueId", "3");
        RemotingCommand missing = call(request);
        assertEquals(ResponseCode.SYSTEM_ERROR, missing.code());
        assertEquals("3@Known is not exist!", missing.remark());
    }

    @Test
    void readAheadModeAndMasterFlushOffsetAreRefusedWithWhy() {
        RemotingCommand readAhead = RemotingCommand.request(RequestCode.SET_COMMITLOG_READ_MODE);
        readAhead.putExtField("READ_AHEAD_MODE", "1");
        RemotingCommand refused = call(readAhead);
        assertEquals(ResponseCode.SYSTEM_ERROR, refused.code());
        assertTrue(refused.remark().contains("madvise"), refused.remark());

        RemotingCommand flushOffset = RemotingCommand.request(RequestCode.RESET_MASTER_FLUSH_OFFSET);
        flushOffset.putExtField("masterFlushOffset", "0");
        RemotingCommand refusedToo = call(flushOffset);
        assertEquals(ResponseCode.SYSTEM_ERROR, refusedToo.code());
        assertFalse(refusedToo.remark().isEmpty());
    }
}
