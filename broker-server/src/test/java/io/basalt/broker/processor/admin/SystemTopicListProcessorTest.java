package io.basalt.broker.processor.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.broker.topic.SystemTopics;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Set;
import org.apache.rocketmq.remoting.protocol.RemotingSerializable;
import org.apache.rocketmq.remoting.protocol.body.TopicList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GET_SYSTEM_TOPIC_LIST_FROM_BROKER, read back with the official 5.2.0 body class. */
class SystemTopicListProcessorTest {
    private static final RequestContext CONTEXT = new RequestContext(null, new InetSocketAddress("127.0.0.1", 50000),
        new InetSocketAddress("127.0.0.1", 10911), 0);

    @TempDir
    Path dir;

    @Test
    void listsTheReservedNamesBenchmarkTestAndTheRmqSysTopicsButNoUserTopic() throws Exception {
        TopicConfigManager topics = TopicConfigManager.open(dir, new SystemTopics.Settings("DefaultCluster", "broker-a",
            true, 8, true, true, false, "RMQ_SYS_TRACE_TOPIC"));
        topics.createOrUpdate(TopicConfig.of("UserTopic", 4, 6));
        topics.createOrUpdate(TopicConfig.of("rmq_sys_wheel_timer", 1, 6));

        RemotingCommand response = new SystemTopicListProcessor(topics)
            .processRequest(CONTEXT, RemotingCommand.request(RequestCode.GET_SYSTEM_TOPIC_LIST_FROM_BROKER)).get();

        assertEquals(ResponseCode.SUCCESS, response.code());
        Set<String> listed = RemotingSerializable.decode(response.body(), TopicList.class).getTopicList();
        assertTrue(listed.containsAll(Set.of("TBW102", "SCHEDULE_TOPIC_XXXX", "RMQ_SYS_TRANS_HALF_TOPIC",
            "RMQ_SYS_TRACE_TOPIC", "RMQ_SYS_TRANS_OP_HALF_TOPIC", "TRANS_CHECK_MAX_TIME_TOPIC", "SELF_TEST_TOPIC",
            "OFFSET_MOVED_EVENT", "CHECKPOINT_TOPIC", "BenchmarkTest", "DefaultCluster", "broker-a",
            "rmq_sys_wheel_timer")), listed.toString());
        assertFalse(listed.contains("UserTopic"), listed.toString());
    }
}
