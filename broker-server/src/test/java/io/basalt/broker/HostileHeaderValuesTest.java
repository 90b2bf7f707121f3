package io.basalt.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.broker.config.BrokerConfiguration;
import io.basalt.broker.processor.SendRequests;
import io.basalt.remoting.netty.NettyClientConfig;
import io.basalt.remoting.netty.NettyRemotingClient;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Header values no RocketMQ client sends — sysFlag bits RocketMQ does not define, a negative bornTimestamp,
 * reconsumeTimes or queueId, a negative committed offset — are refused with a remark naming the value, and
 * nothing of them is stored: the next good message is the queue's first, the group's offset is unchanged.
 */
class HostileHeaderValuesTest {
    /** RocketMQ's ResponseCode.INVALID_PARAMETER. */
    private static final int INVALID_PARAMETER = 29;

    @TempDir
    Path dir;

    private BrokerController broker;
    private NettyRemotingClient client;
    private String address;

    @BeforeEach
    void start() throws Exception {
        broker = BrokerController.create(BrokerConfiguration.of(Map.of("listenPort", "0", "haListenPort", "0",
            "metricsPort", "0", "bindAddress", "127.0.0.1", "brokerIP1", "127.0.0.1", "storePathRootDir", dir.toString(),
            "mappedFileSizeCommitLog", Integer.toString(1 << 20), "warmMapedFileEnable", "false")));
        broker.start();
        client = new NettyRemotingClient(NettyClientConfig.defaults());
        address = "127.0.0.1:" + broker.listenPort();
    }

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        if (broker != null) {
            broker.shutdown();
        }
    }

    @Test
    void undefinedSysFlagBitsNegativeTimestampsAndQueueIdsAreRefusedAndNotStored() throws Exception {
        assertRefused(send("f", Integer.toString(0x7fffffff)), "sysFlag 0x7fffffff");
        assertRefused(send("f", Integer.toString(0x800)), "sysFlag 0x800");
        assertRefused(send("g", "-1"), "bornTimestamp -1 is negative");
        assertRefused(send("j", "-3"), "reconsumeTimes -3 is negative");
        assertRefused(send("e", Integer.toString(Integer.MIN_VALUE)), "queueId " + Integer.MIN_VALUE);

        // defined bits (multi-tags, compressed); PREPARED (0x4) alone would be a half message without TRAN_MSG, refused
        RemotingCommand good = client.invokeSync(address, send("f", Integer.toString(0x2 | 0x1)), 5000);
        assertEquals(ResponseCode.SUCCESS, good.code(), good.remark());
        assertEquals("0", good.extFields().get("queueOffset"), "nothing refused was stored before it");
    }

    @Test
    void aNegativeCommittedOffsetIsRefusedAndTheGroupKeepsItsOffset() throws Exception {
        assertEquals(ResponseCode.SUCCESS, client.invokeSync(address, send("f", "0"), 5000).code());
        assertEquals(ResponseCode.SUCCESS, client.invokeSync(address, commit(1), 5000).code());

        RemotingCommand refused = client.invokeSync(address, commit(-100), 5000);
        assertEquals(INVALID_PARAMETER, refused.code(), refused.remark());
        assertTrue(refused.remark().contains("commitOffset -100 is negative"), refused.remark());

        RemotingCommand query = RemotingCommand.request(RequestCode.QUERY_CONSUMER_OFFSET);
        query.putExtField("consumerGroup", "cg");
        query.putExtField("topic", "T");
        query.putExtField("queueId", "0");
        RemotingCommand offset = client.invokeSync(address, query, 5000);
        assertEquals(ResponseCode.SUCCESS, offset.code(), offset.remark());
        assertEquals("1", offset.extFields().get("offset"));
    }

    private void assertRefused(RemotingCommand request, String remark) throws Exception {
        RemotingCommand answer = client.invokeSync(address, request, 5000);
        assertEquals(ResponseCode.MESSAGE_ILLEGAL, answer.code(), answer.remark());
        assertTrue(answer.remark() != null && answer.remark().contains(remark), answer.remark());
    }

    private static RemotingCommand send(String field, String value) {
        RemotingCommand request = SendRequests.sendV2("T", "", new byte[16]);
        request.putExtField(field, value);
        return request;
    }

    private static RemotingCommand commit(long offset) {
        RemotingCommand r = RemotingCommand.request(RequestCode.UPDATE_CONSUMER_OFFSET);
        r.putExtField("consumerGroup", "cg");
        r.putExtField("topic", "T");
        r.putExtField("queueId", "0");
        r.putExtField("commitOffset", Long.toString(offset));
        return r;
    }
}
