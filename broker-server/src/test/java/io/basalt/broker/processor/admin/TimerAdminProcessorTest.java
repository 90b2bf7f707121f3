package io.basalt.broker.processor.admin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.basalt.broker.testing.FixedTimerMessages;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.MessageStore;
import io.basalt.store.TimerMessages;
import io.basalt.store.testing.TestStores;
import org.apache.rocketmq.remoting.protocol.RemotingSerializable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GET_TIMER_CHECK_POINT, GET_TIMER_METRICS and the timer keys of GET_BROKER_RUNTIME_INFO, over a wheel the test sets. */
class TimerAdminProcessorTest {
    private static final RequestContext CONTEXT = new RequestContext(null, new InetSocketAddress("127.0.0.1", 50000),
        new InetSocketAddress("127.0.0.1", 10911), 0);

    @TempDir
    Path dir;
    private final FixedTimerMessages timers = new FixedTimerMessages();

    private RemotingCommand call(int code) throws Exception {
        return new TimerAdminProcessor(timers).processRequest(CONTEXT, RemotingCommand.request(code)).join();
    }

    @Test
    void theCheckpointAndMetricsAreAnsweredAsTheWheelHasThem() throws Exception {
        byte[] checkpoint = new byte[56];
        checkpoint[7] = 42;
        timers.checkpoint = checkpoint;
        timers.metricsJson = "{\"timingCount\":{\"TopicA\":{\"count\":3,\"timeStamp\":1700000000000}}}";

        RemotingCommand check = call(RequestCode.GET_TIMER_CHECK_POINT);
        assertEquals(ResponseCode.SUCCESS, check.code());
        assertArrayEquals(checkpoint, check.body());
        RemotingCommand metrics = call(RequestCode.GET_TIMER_METRICS);
        assertEquals(ResponseCode.SUCCESS, metrics.code());
        assertEquals(timers.metricsJson, new String(metrics.body(), StandardCharsets.UTF_8));
    }

    @Test
    void aDisabledWheelAnswersRocketMqsSystemErrors() throws Exception {
        timers.enabled = false;

        RemotingCommand check = call(RequestCode.GET_TIMER_CHECK_POINT);
        assertEquals(ResponseCode.SYSTEM_ERROR, check.code());
        assertEquals("The checkpoint is null", check.remark());
        assertNull(check.body());
        RemotingCommand metrics = call(RequestCode.GET_TIMER_METRICS);
        assertEquals(ResponseCode.SYSTEM_ERROR, metrics.code());
        assertEquals("The timer message store is null", metrics.remark());
    }

    @Test
    void runtimeInfoReportsTheWheelsStatsInRocketMqsUnitsAndZerosWhenDisabled() throws Exception {
        MessageStore store = TestStores.start(TestStores.config(dir.resolve("store")).build());
        try {
            timers.stats = new TimerMessages.Stats(12, 5, 800, 7_900, 30, 250.5, 3.0, 100, 88, 2, 1);
            BrokerRuntimeInfoProcessor processor = new BrokerRuntimeInfoProcessor(store,
                new BrokerRuntimeStats(() -> 0, () -> 0, System::currentTimeMillis, java.time.ZoneOffset.UTC), dir,
                () -> true, Map::of, List.of(), timers);
            Map<String, String> table = runtimeInfo(processor);
            assertEquals("7", table.get("timerReadBehind"), "whole seconds, as getDequeueBehind()");
            assertEquals("5", table.get("timerOffsetBehind"));
            assertEquals("30", table.get("timerCongestNum"));
            assertEquals("250.5", table.get("timerEnqueueTps"));
            assertEquals("3.0", table.get("timerDequeueTps"));

            timers.enabled = false;
            table = runtimeInfo(processor);
            assertEquals("0", table.get("timerReadBehind"));
            assertEquals("0", table.get("timerOffsetBehind"));
            assertEquals("0", table.get("timerCongestNum"));
            assertEquals("0.0", table.get("timerEnqueueTps"));
            assertEquals("0.0", table.get("timerDequeueTps"));
        } finally {
            store.shutdown();
        }
    }

    private static Map<String, String> runtimeInfo(BrokerRuntimeInfoProcessor processor) throws Exception {
        RemotingCommand response = processor.processRequest(CONTEXT,
            RemotingCommand.request(RequestCode.GET_BROKER_RUNTIME_INFO)).join();
        return RemotingSerializable.decode(response.body(), org.apache.rocketmq.remoting.protocol.body.KVTable.class)
            .getTable();
    }
}
