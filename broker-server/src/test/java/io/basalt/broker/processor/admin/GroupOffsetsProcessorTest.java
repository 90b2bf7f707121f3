package io.basalt.broker.processor.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.basalt.broker.client.ClientManager;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.MessageStore;
import io.basalt.store.testing.TestStores;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.rocketmq.remoting.protocol.body.QueryCorrectionOffsetBody;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CLONE_GROUP_OFFSET and QUERY_CORRECTION_OFFSET on real topic and offset files, read back with the official 5.2.0
 * body class; and {@link CorrectionOffsets} without RocketMQ's two defects.
 */
class GroupOffsetsProcessorTest {
    private static final RequestContext CONTEXT = new RequestContext(null, new InetSocketAddress("127.0.0.1", 50000),
        new InetSocketAddress("127.0.0.1", 10911), 0);

    @TempDir
    Path dir;
    private MessageStore store;
    private ConsumerOffsetManager offsets;
    private GroupOffsetsProcessor processor;

    @BeforeEach
    void open() throws Exception {
        store = TestStores.start(TestStores.config(dir.resolve("store")).build());
        TopicConfigManager topics = TopicConfigManager.open(dir.resolve("config"), true, 4);
        offsets = ConsumerOffsetManager.open(dir.resolve("config"));
        TopicAdminProcessor topicAdmin = new TopicAdminProcessor("broker-a", topics, offsets, store);
        for (String topic : new String[] {"T1", "T2"}) {
            assertEquals(ResponseCode.SUCCESS, call(topicAdmin, RequestCode.UPDATE_AND_CREATE_TOPIC, Map.of("topic", topic,
                "readQueueNums", "4", "writeQueueNums", "4", "perm", "6")).code());
        }
        processor = new GroupOffsetsProcessor(topics, offsets, new ClientManager(120_000, System::currentTimeMillis), store);
    }

    @AfterEach
    void close() {
        store.shutdown();
    }

    private static RemotingCommand call(RequestProcessor processor, int code, Map<String, String> fields) throws Exception {
        RemotingCommand request = RemotingCommand.request(code);
        fields.forEach(request::putExtField);
        return processor.processRequest(CONTEXT, request).get();
    }

    @Test
    void cloneCopiesTheGivenTopicOrEveryTopicOfTheSourceGroup() throws Exception {
        offsets.commitOffset(null, "src", "T1", 0, 10);
        offsets.commitOffset(null, "src", "T1", 1, 11);
        offsets.commitOffset(null, "src", "T2", 0, 20);
        offsets.commitOffset(null, "dest", "T1", 3, 99);

        RemotingCommand one = call(processor, RequestCode.CLONE_GROUP_OFFSET, Map.of("srcGroup", "src", "destGroup", "dest",
            "topic", "T1", "offline", "false"));
        assertEquals(ResponseCode.SUCCESS, one.code());
        assertEquals(Map.of(0, 10L, 1, 11L), offsets.queryOffsets("dest", "T1"), "the destination's offsets are replaced");
        assertEquals(Map.of(), offsets.queryOffsets("dest", "T2"));

        // RocketMQ 5.2.0 copies nothing without a topic; Basalt copies every topic of the source group
        RemotingCommand all = call(processor, RequestCode.CLONE_GROUP_OFFSET, Map.of("srcGroup", "src", "destGroup", "other"));
        assertEquals(ResponseCode.SUCCESS, all.code());
        assertEquals(Map.of(0, 10L, 1, 11L), offsets.queryOffsets("other", "T1"));
        assertEquals(Map.of(0, 20L), offsets.queryOffsets("other", "T2"));
        assertEquals("copied T1 (2 queues), T2 (1 queues)", all.remark());

        RemotingCommand none = call(processor, RequestCode.CLONE_GROUP_OFFSET, Map.of("srcGroup", "nobody", "destGroup",
            "dest", "topic", "T2"));
        assertEquals(ResponseCode.SUCCESS, none.code());
        assertEquals("copied nothing; skipped T2 (nobody has no offsets)", none.remark());
    }

    @Test
    void correctionOffsetsLeaveTheFilteredGroupsOffsetsAloneAndAnswerAQueueOnlyTheCompareGroupHas() throws Exception {
        offsets.commitOffset(null, "g1", "T1", 0, 10);
        offsets.commitOffset(null, "g1", "T1", 1, 3);
        offsets.commitOffset(null, "g2", "T1", 0, 5);
        offsets.commitOffset(null, "g2", "T2", 0, 7);
        offsets.commitOffset(null, "cmp", "T1", 0, 7);
        offsets.commitOffset(null, "cmp", "T1", 1, 4);
        offsets.commitOffset(null, "cmp", "T1", 2, 1);

        RemotingCommand answer = call(processor, RequestCode.QUERY_CORRECTION_OFFSET, Map.of("topic", "T1",
            "compareGroup", "cmp", "filterGroups", "g2,cmp"));
        assertEquals(ResponseCode.SUCCESS, answer.code(), answer.remark());
        Map<Integer, Long> corrections = QueryCorrectionOffsetBody.decode(answer.body(), QueryCorrectionOffsetBody.class)
            .getCorrectionOffsets();
        assertEquals(Map.of(0, Long.MAX_VALUE, 1, 3L, 2, Long.MAX_VALUE), corrections);
        assertEquals(Map.of(0, 5L), offsets.queryOffsets("g2", "T1"), "a filtered group keeps its offsets (RocketMQ deletes them)");
        assertEquals(Map.of(0, 7L), offsets.queryOffsets("g2", "T2"));

        RemotingCommand unfiltered = call(processor, RequestCode.QUERY_CORRECTION_OFFSET, Map.of("topic", "T1",
            "compareGroup", "cmp"));
        assertEquals(Map.of(0, 5L, 1, 3L, 2, 1L), QueryCorrectionOffsetBody.decode(unfiltered.body(),
            QueryCorrectionOffsetBody.class).getCorrectionOffsets());
    }

    @Test
    void offsetsBelowTheQueuesMinimumDoNotCount() {
        Map<String, Map<Integer, Long>> byGroup = new HashMap<>();
        byGroup.put("old", Map.of(0, 2L));
        byGroup.put("current", Map.of(0, 50L));
        assertEquals(Map.of(0, 50L), CorrectionOffsets.compute(byGroup, Set.of(), Map.of(), queueId -> 40));
        assertEquals(Map.of(0, Long.MAX_VALUE), CorrectionOffsets.compute(byGroup, Set.of(), Map.of(0, 45L), queueId -> 40));
    }
}
