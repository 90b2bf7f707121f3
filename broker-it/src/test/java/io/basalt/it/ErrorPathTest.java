package io.basalt.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeaderV2;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad sends as raw requests through the official remoting client (bypassing the producer's own checks):
 * each gets RocketMQ's code and a remark that says what is wrong, and the broker keeps serving.
 */
class ErrorPathTest {
    @TempDir
    static Path dir;
    static BrokerProcess broker;
    /** One client per test: its connection and pool threads start and stop within the test. */
    NettyRemotingClient client;

    @BeforeAll
    static void start() throws Exception {
        broker = BrokerProcess.start(dir);   // maxMessageSize 1 MiB
    }

    @AfterAll
    static void stop() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    @BeforeEach
    void startClient() {
        client = new NettyRemotingClient(new NettyClientConfig());
        client.start();
    }

    @AfterEach
    void stopClient() {
        if (client != null) {
            client.shutdown();
        }
    }

    private RemotingCommand send(String topic, int queueId, byte[] body) throws Exception {
        SendMessageRequestHeader h = new SendMessageRequestHeader();
        h.setProducerGroup("pg-raw");
        h.setTopic(topic);
        h.setDefaultTopic("TBW102");
        h.setDefaultTopicQueueNums(4);
        h.setQueueId(queueId);
        h.setSysFlag(0);
        h.setBornTimestamp(System.currentTimeMillis());
        h.setFlag(0);
        h.setProperties("TAGS\u0001T\u0002UNIQ_KEY\u0001" + Long.toHexString(System.nanoTime()) + "\u0002");
        h.setReconsumeTimes(0);
        RemotingCommand request = RemotingCommand.createRequestCommand(RequestCode.SEND_MESSAGE_V2,
            SendMessageRequestHeaderV2.createSendMessageRequestHeaderV2(h));
        request.setBody(body);
        return client.invokeSync(broker.address(), request, 10_000);
    }

    private void assertStillServing() throws Exception {
        RemotingCommand ok = send("ErrorPathOk", 0, "fine".getBytes(StandardCharsets.UTF_8));
        assertEquals(ResponseCode.SUCCESS, ok.getCode(), ok.getRemark());
        assertEquals(453, ok.getVersion(), "every response carries RocketMQ 5.2.0's version");
    }

    @Test
    void overSizeMessageIsRefusedWithMessageIllegal() throws Exception {
        RemotingCommand r = send("ErrorPathBig", 0, new byte[1024 * 1024 + 1]);
        assertEquals(ResponseCode.MESSAGE_ILLEGAL, r.getCode());
        assertEquals(453, r.getVersion(), "error responses carry the version too");
        assertTrue(r.getRemark().contains("exceeds maxMessageSize"), r.getRemark());
        assertStillServing();
    }

    @Test
    void illegalTopicNameIsRefusedWithInvalidParameter() throws Exception {
        RemotingCommand r = send("bad topic!", 0, "x".getBytes(StandardCharsets.UTF_8));
        assertEquals(29, r.getCode());
        assertTrue(r.getRemark().contains("illegal characters"), r.getRemark());
        RemotingCommand reserved = send("SCHEDULE_TOPIC_XXXX", 0, "x".getBytes(StandardCharsets.UTF_8));
        assertEquals(ResponseCode.NO_PERMISSION, reserved.getCode(), reserved.getRemark());
        assertStillServing();
    }

    @Test
    void queueIdOutOfRangeIsRefusedWithInvalidParameter() throws Exception {
        assertStillServing();   // creates ErrorPathOk with 4 queues
        RemotingCommand r = send("ErrorPathOk", 7, "x".getBytes(StandardCharsets.UTF_8));
        assertEquals(29, r.getCode());
        assertTrue(r.getRemark().contains("queueId[7] is illegal"), r.getRemark());
        assertStillServing();
    }

    @Test
    void producerStillWorksAfterBadRequests() throws Exception {
        send("bad/topic", 0, "x".getBytes(StandardCharsets.UTF_8));
        DefaultMQProducer p = Clients.producer(broker, "pg-error-path");
        try {
            assertEquals(SendStatus.SEND_OK, p.send(new Message("ErrorPathAfter", "x".getBytes(StandardCharsets.UTF_8)))
                .getSendStatus());
        } finally {
            p.shutdown();
        }
    }

    @Test
    void theLongNamedSendMessageHeaderIsAcceptedToo() throws Exception {
        SendMessageRequestHeader h = new SendMessageRequestHeader();
        h.setProducerGroup("pg-raw");
        h.setTopic("ErrorPathV1");
        h.setDefaultTopic("TBW102");
        h.setDefaultTopicQueueNums(4);
        h.setQueueId(1);
        h.setSysFlag(0);
        h.setBornTimestamp(System.currentTimeMillis());
        h.setFlag(0);
        h.setProperties("TAGS\u0001T\u0002");
        RemotingCommand request = RemotingCommand.createRequestCommand(RequestCode.SEND_MESSAGE, h);
        request.setBody("v1".getBytes(StandardCharsets.UTF_8));
        RemotingCommand r = client.invokeSync(broker.address(), request, 10_000);
        assertEquals(ResponseCode.SUCCESS, r.getCode(), r.getRemark());
        assertEquals("1", r.getExtFields().get("queueId"));
        assertEquals(32, r.getExtFields().get("msgId").length());
        assertTrue(r.getExtFields().get("transactionId") != null, "the broker gives a message without UNIQ_KEY one");
    }
}
