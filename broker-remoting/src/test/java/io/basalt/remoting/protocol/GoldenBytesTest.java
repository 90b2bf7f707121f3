package io.basalt.remoting.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.rocketmq.common.MQVersion;
import org.apache.rocketmq.remoting.CommandCustomHeader;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/**
 * Basalt's command codec against the official rocketmq-remoting 5.2.0 codec: equal bytes for equal
 * commands in both serializations, and each side decodes the other's bytes.
 */
class GoldenBytesTest {
    private static final String AWKWARD = "q\"b\\s/n\nr\rt\tb\bf\f\u0001\u0002\u000b\u001f\u007f\u0085\u009f\u00a0é中"
        + "\u2028\u2029\ud83d\ude00<>()'";

    private static org.apache.rocketmq.remoting.protocol.SerializeType official(SerializeType type) {
        return org.apache.rocketmq.remoting.protocol.SerializeType.valueOf(type.name());
    }

    /** The bytes the official NettyEncoder puts on the wire for this command. */
    private static byte[] officialWire(org.apache.rocketmq.remoting.protocol.RemotingCommand cmd) {
        ByteBuf out = Unpooled.buffer();
        try {
            cmd.fastEncodeHeader(out);
            if (cmd.getBody() != null) {
                out.writeBytes(cmd.getBody());
            }
            return ByteBufUtil.getBytes(out);
        } finally {
            out.release();
        }
    }

    private static org.apache.rocketmq.remoting.protocol.RemotingCommand officialCommand(int code,
        CommandCustomHeader header, SerializeType type, int opaque, int flag, String remark, byte[] body) {
        org.apache.rocketmq.remoting.protocol.RemotingCommand cmd =
            org.apache.rocketmq.remoting.protocol.RemotingCommand.createRequestCommand(code, header);
        cmd.setSerializeTypeCurrentRPC(official(type));
        cmd.setOpaque(opaque);
        cmd.setFlag(flag);
        cmd.setVersion(RemotingVersion.CURRENT);
        cmd.setRemark(remark);
        cmd.setBody(body);
        return cmd;
    }

    private static RemotingCommand basaltCommand(int code, CommandHeader header, SerializeType type, int opaque,
        int flag, String remark, byte[] body) {
        RemotingCommand cmd = RemotingCommand.request(code, header);
        cmd.setSerializeType(type);
        cmd.setOpaque(opaque);
        cmd.setFlag(flag);
        cmd.setRemark(remark);
        cmd.setBody(body);
        return cmd;
    }

    private static RemotingCommand decodeWire(byte[] wire) throws RemotingCommandException {
        return RemotingCommand.decodeFrame(wire);
    }

    private static org.apache.rocketmq.remoting.protocol.RemotingCommand officialDecode(byte[] wire) throws Exception {
        return org.apache.rocketmq.remoting.protocol.RemotingCommand.decode(ByteBuffer.wrap(wire, 4, wire.length - 4).slice());
    }

    @ParameterizedTest
    @EnumSource(SerializeType.class)
    void plainCommandsEncodeIdentically(SerializeType type) throws Exception {
        HashMap<String, String> ext = new HashMap<>();
        ext.put("topic", "TopicTest");
        ext.put("queueId", "3");
        ext.put("awkward", AWKWARD);
        ext.put(AWKWARD, "key too");
        byte[] body = "hello body".getBytes();
        int[][] shapes = {{RequestCode.SEND_MESSAGE, 0}, {ResponseCode.SYSTEM_BUSY, 1}, {RequestCode.HEART_BEAT, 2},
            {-7, 3}, {32767, 0}, {RequestCode.POP_MESSAGE, 0}};
        for (int[] shape : shapes) {
            for (String remark : new String[] {null, "", "plain", AWKWARD}) {
                for (byte[] b : new byte[][] {null, body}) {
                    for (HashMap<String, String> fields : Arrays.asList(null, new HashMap<String, String>(), ext)) {
                        if (type == SerializeType.ROCKETMQ && shape[0] > Short.MAX_VALUE) {
                            continue; // the binary header holds a 16-bit code
                        }
                        org.apache.rocketmq.remoting.protocol.RemotingCommand theirs =
                            officialCommand(shape[0], null, type, 42 + shape[1], shape[1], remark, b);
                        theirs.setExtFields(fields == null ? null : new HashMap<>(fields));
                        RemotingCommand ours = basaltCommand(shape[0], null, type, 42 + shape[1], shape[1], remark, b);
                        ours.setExtFields(fields == null ? null : new HashMap<>(fields));
                        byte[] expected = officialWire(theirs);
                        assertArrayEquals(expected, ours.encode(), () -> "code " + shape[0] + " remark " + remark
                            + "\nexpected " + new String(expected) + "\nactual   " + new String(ours.encode()));
                        assertArrayEquals(theirs.encode().array(), ours.encode());
                        assertSameCommand(decodeWire(expected), officialDecode(ours.encode()));
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(SerializeType.class)
    void languagesAndFlagsRoundTrip(SerializeType type) throws Exception {
        for (LanguageCode language : LanguageCode.values()) {
            org.apache.rocketmq.remoting.protocol.RemotingCommand theirs =
                officialCommand(RequestCode.PULL_MESSAGE, null, type, -1, 3, "r", null);
            theirs.setLanguage(org.apache.rocketmq.remoting.protocol.LanguageCode.valueOf(language.code()));
            RemotingCommand ours = basaltCommand(RequestCode.PULL_MESSAGE, null, type, -1, 3, "r", null);
            ours.setLanguage(language);
            assertArrayEquals(officialWire(theirs), ours.encode());
            RemotingCommand decoded = decodeWire(officialWire(theirs));
            assertEquals(language, decoded.language());
            assertEquals(true, decoded.isResponse());
            assertEquals(true, decoded.isOneway());
            assertEquals(type, decoded.serializeType());
        }
    }

    @ParameterizedTest
    @EnumSource(SerializeType.class)
    void sendHeaderV2EncodesIdentically(SerializeType type) throws Exception {
        org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeader theirsV1 =
            new org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeader();
        theirsV1.setProducerGroup("producer-group");
        theirsV1.setTopic("TopicTest");
        theirsV1.setDefaultTopic("TBW102");
        theirsV1.setDefaultTopicQueueNums(4);
        theirsV1.setQueueId(2);
        theirsV1.setSysFlag(0);
        theirsV1.setBornTimestamp(1_700_000_000_123L);
        theirsV1.setFlag(0);
        theirsV1.setProperties("UNIQ_KEY\u0001AC1100020001\u0002WAIT\u0001true\u0002TAGS\u0001TagA\u0002");
        theirsV1.setReconsumeTimes(0);
        theirsV1.setBrokerName("broker-a");
        org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeaderV2 theirsHeader =
            org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeaderV2.createSendMessageRequestHeaderV2(theirsV1);

        SendMessageRequestHeaderV2 ours = new SendMessageRequestHeaderV2();
        ours.setA("producer-group");
        ours.setB("TopicTest");
        ours.setC("TBW102");
        ours.setD(4);
        ours.setE(2);
        ours.setF(0);
        ours.setG(1_700_000_000_123L);
        ours.setH(0);
        ours.setI(theirsHeader.getI());
        ours.setJ(0);
        ours.setK(false);
        ours.setM(false);
        ours.setN("broker-a");
        byte[] body = new byte[300];
        Arrays.fill(body, (byte) 7);
        assertHeaderCommandsMatch(type, RequestCode.SEND_MESSAGE_V2, theirsHeader, ours, body);

        RemotingCommand decoded = decodeWire(officialWire(officialCommand(RequestCode.SEND_MESSAGE_V2, theirsHeader,
            type, 9, 0, null, body)));
        SendMessageRequestHeader v1 = SendMessageRequestHeader.parse(decoded);
        assertEquals("producer-group", v1.getProducerGroup());
        assertEquals("TopicTest", v1.getTopic());
        assertEquals(1_700_000_000_123L, v1.getBornTimestamp());
        assertEquals(theirsHeader.getI(), v1.getProperties());
        assertEquals("broker-a", v1.getBrokerName());
        assertArrayEquals(body, decoded.body());
    }

    @ParameterizedTest
    @EnumSource(SerializeType.class)
    void sendHeaderV1EncodesIdentically(SerializeType type) throws Exception {
        org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeader theirsHeader =
            new org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeader();
        SendMessageRequestHeader ours = new SendMessageRequestHeader();
        theirsHeader.setProducerGroup("pg");
        ours.setProducerGroup("pg");
        theirsHeader.setTopic("t");
        ours.setTopic("t");
        theirsHeader.setDefaultTopic("TBW102");
        ours.setDefaultTopic("TBW102");
        theirsHeader.setDefaultTopicQueueNums(4);
        ours.setDefaultTopicQueueNums(4);
        theirsHeader.setQueueId(1);
        ours.setQueueId(1);
        theirsHeader.setSysFlag(8);
        ours.setSysFlag(8);
        theirsHeader.setBornTimestamp(123L);
        ours.setBornTimestamp(123L);
        theirsHeader.setFlag(0);
        ours.setFlag(0);
        theirsHeader.setProperties("A\u0001B\u0002");
        ours.setProperties("A\u0001B\u0002");
        theirsHeader.setMaxReconsumeTimes(16);
        ours.setMaxReconsumeTimes(16);
        theirsHeader.setBrokerName("broker-a");
        ours.setBrokerName("broker-a");
        theirsHeader.setNamespaced(true);
        ours.setNamespaced(true);
        assertHeaderCommandsMatch(type, RequestCode.SEND_MESSAGE, theirsHeader, ours, null);
        SendMessageRequestHeader back = SendMessageRequestHeader.parse(decodeWire(
            officialWire(officialCommand(RequestCode.SEND_MESSAGE, theirsHeader, type, 1, 0, null, null))));
        assertEquals(Integer.valueOf(16), back.getMaxReconsumeTimes());
        assertEquals(Boolean.TRUE, back.getNamespaced());
    }

    @ParameterizedTest
    @EnumSource(SerializeType.class)
    void replyPushHeaderEncodesIdenticallyAndCopiesTheReplysSendHeader(SerializeType type) throws Exception {
        org.apache.rocketmq.remoting.protocol.header.ReplyMessageRequestHeader theirsHeader =
            new org.apache.rocketmq.remoting.protocol.header.ReplyMessageRequestHeader();
        theirsHeader.setProducerGroup("replier");
        theirsHeader.setTopic("DefaultCluster_REPLY_TOPIC");
        theirsHeader.setDefaultTopic("TBW102");
        theirsHeader.setDefaultTopicQueueNums(4);
        theirsHeader.setQueueId(2);
        theirsHeader.setSysFlag(0);
        theirsHeader.setBornTimestamp(1_700_000_000_123L);
        theirsHeader.setFlag(0);
        theirsHeader.setProperties("CORRELATION_ID\u0001c-1\u0002MSG_TYPE\u0001reply\u0002");
        theirsHeader.setReconsumeTimes(0);
        theirsHeader.setBornHost("127.0.0.1:40000");
        theirsHeader.setStoreHost("127.0.0.1:10911");
        theirsHeader.setStoreTimestamp(1_700_000_000_456L);
        SendMessageRequestHeader send = new SendMessageRequestHeader();
        send.setProducerGroup("replier");
        send.setTopic("DefaultCluster_REPLY_TOPIC");
        send.setDefaultTopic("TBW102");
        send.setDefaultTopicQueueNums(4);
        send.setQueueId(2);
        send.setSysFlag(0);
        send.setBornTimestamp(1_700_000_000_123L);
        send.setFlag(0);
        send.setProperties("CORRELATION_ID\u0001c-1\u0002MSG_TYPE\u0001reply\u0002");
        send.setReconsumeTimes(0);
        send.setBrokerName("broker-a");   // a send field the push does not carry
        ReplyMessageRequestHeader ours = ReplyMessageRequestHeader.of(send);
        ours.setBornHost("127.0.0.1:40000");
        ours.setStoreHost("127.0.0.1:10911");
        ours.setStoreTimestamp(1_700_000_000_456L);
        byte[] body = "the reply".getBytes();
        assertHeaderCommandsMatch(type, RequestCode.PUSH_REPLY_MESSAGE_TO_CLIENT, theirsHeader, ours, body);
        ReplyMessageRequestHeader back = ReplyMessageRequestHeader.decode(decodeWire(officialWire(officialCommand(
            RequestCode.PUSH_REPLY_MESSAGE_TO_CLIENT, theirsHeader, type, 1, 0, null, body))).extFields());
        assertEquals("127.0.0.1:40000", back.getBornHost());
        assertEquals(1_700_000_000_456L, back.getStoreTimestamp());
        assertEquals(theirsHeader.getProperties(), back.getProperties());
    }

    @ParameterizedTest
    @EnumSource(SerializeType.class)
    void sendResponseHeaderEncodesIdentically(SerializeType type) throws Exception {
        org.apache.rocketmq.remoting.protocol.header.SendMessageResponseHeader theirsHeader =
            new org.apache.rocketmq.remoting.protocol.header.SendMessageResponseHeader();
        theirsHeader.setMsgId("C0A8010100002A9F0000000000000064");
        theirsHeader.setQueueId(3);
        theirsHeader.setQueueOffset(123456789012L);
        theirsHeader.setBatchUniqId("batch");
        SendMessageResponseHeader ours = new SendMessageResponseHeader();
        ours.setMsgId("C0A8010100002A9F0000000000000064");
        ours.setQueueId(3);
        ours.setQueueOffset(123456789012L);
        ours.setBatchUniqId("batch");
        assertHeaderCommandsMatch(type, ResponseCode.SUCCESS, theirsHeader, ours, null);
        org.apache.rocketmq.remoting.protocol.RemotingCommand theirs =
            officialCommand(ResponseCode.SUCCESS, theirsHeader, type, 5, 1, null, null);
        SendMessageResponseHeader back = SendMessageResponseHeader.decode(decodeWire(officialWire(theirs)).extFields());
        assertEquals(123456789012L, back.getQueueOffset());
        assertNull(back.getTransactionId());
    }

    @ParameterizedTest
    @EnumSource(SerializeType.class)
    void pullHeadersEncodeIdentically(SerializeType type) throws Exception {
        org.apache.rocketmq.remoting.protocol.header.PullMessageRequestHeader theirsHeader =
            new org.apache.rocketmq.remoting.protocol.header.PullMessageRequestHeader();
        PullMessageRequestHeader ours = new PullMessageRequestHeader();
        theirsHeader.setConsumerGroup("cg");
        ours.setConsumerGroup("cg");
        theirsHeader.setTopic("TopicTest");
        ours.setTopic("TopicTest");
        theirsHeader.setQueueId(0);
        ours.setQueueId(0);
        theirsHeader.setQueueOffset(77L);
        ours.setQueueOffset(77L);
        theirsHeader.setMaxMsgNums(32);
        ours.setMaxMsgNums(32);
        theirsHeader.setSysFlag(3);
        ours.setSysFlag(3);
        theirsHeader.setCommitOffset(70L);
        ours.setCommitOffset(70L);
        theirsHeader.setSuspendTimeoutMillis(15000L);
        ours.setSuspendTimeoutMillis(15000L);
        theirsHeader.setSubscription("TagA || TagB");
        ours.setSubscription("TagA || TagB");
        theirsHeader.setSubVersion(1700000000000L);
        ours.setSubVersion(1700000000000L);
        theirsHeader.setExpressionType("TAG");
        ours.setExpressionType("TAG");
        theirsHeader.setMaxMsgBytes(1 << 20);
        ours.setMaxMsgBytes(1 << 20);
        theirsHeader.setBrokerName("broker-a");
        ours.setBrokerName("broker-a");
        theirsHeader.setLo(false);
        ours.setLogical(false);
        assertHeaderCommandsMatch(type, RequestCode.PULL_MESSAGE, theirsHeader, ours, null);
        PullMessageRequestHeader back = PullMessageRequestHeader.decode(decodeWire(
            officialWire(officialCommand(RequestCode.PULL_MESSAGE, theirsHeader, type, 1, 0, null, null))).extFields());
        assertEquals(77L, back.getQueueOffset());
        assertEquals("TagA || TagB", back.getSubscription());
        assertEquals(Boolean.FALSE, back.getLogical());

        org.apache.rocketmq.remoting.protocol.header.PullMessageResponseHeader theirsResponse =
            new org.apache.rocketmq.remoting.protocol.header.PullMessageResponseHeader();
        PullMessageResponseHeader oursResponse = new PullMessageResponseHeader();
        theirsResponse.setSuggestWhichBrokerId(0L);
        oursResponse.setSuggestWhichBrokerId(0L);
        theirsResponse.setNextBeginOffset(109L);
        oursResponse.setNextBeginOffset(109L);
        theirsResponse.setMinOffset(0L);
        oursResponse.setMinOffset(0L);
        theirsResponse.setMaxOffset(5000L);
        oursResponse.setMaxOffset(5000L);
        theirsResponse.setTopicSysFlag(0);
        oursResponse.setTopicSysFlag(0);
        assertHeaderCommandsMatch(type, ResponseCode.SUCCESS, theirsResponse, oursResponse, new byte[] {1, 2, 3});
    }

    private static void assertHeaderCommandsMatch(SerializeType type, int code, CommandCustomHeader theirsHeader,
        CommandHeader oursHeader, byte[] body) throws Exception {
        org.apache.rocketmq.remoting.protocol.RemotingCommand theirs =
            officialCommand(code, theirsHeader, type, 77, 0, null, body);
        RemotingCommand ours = basaltCommand(code, oursHeader, type, 77, 0, null, body);
        byte[] expected = officialWire(theirs);
        byte[] actual = ours.encode();
        assertArrayEquals(expected, actual, () -> "expected " + new String(expected) + "\nactual   " + new String(actual));
        org.apache.rocketmq.remoting.protocol.RemotingCommand officialView = officialDecode(actual);
        CommandCustomHeader decoded = officialView.decodeCommandCustomHeader(theirsHeader.getClass());
        assertEquals(fieldValues(theirsHeader), fieldValues(decoded));
        assertSameCommand(decodeWire(expected), officialView);
    }

    private static Map<String, Object> fieldValues(Object header) throws IllegalAccessException {
        Map<String, Object> values = new HashMap<>();
        for (Class<?> c = header.getClass(); c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers())) {
                    f.setAccessible(true);
                    values.put(f.getName(), f.get(header));
                }
            }
        }
        return values;
    }

    private static void assertSameCommand(RemotingCommand ours, org.apache.rocketmq.remoting.protocol.RemotingCommand theirs) {
        assertEquals(theirs.getCode(), ours.code());
        assertEquals(theirs.getLanguage().getCode(), ours.language().code());
        assertEquals(theirs.getVersion(), ours.version());
        assertEquals(theirs.getOpaque(), ours.opaque());
        assertEquals(theirs.getFlag(), ours.flag());
        String theirRemark = theirs.getRemark() == null || theirs.getRemark().isEmpty() ? null : theirs.getRemark();
        String ourRemark = ours.remark() == null || ours.remark().isEmpty() ? null : ours.remark();
        assertEquals(theirRemark, ourRemark);
        Map<String, String> theirFields = theirs.getExtFields() == null || theirs.getExtFields().isEmpty()
            ? null : theirs.getExtFields();
        Map<String, String> ourFields = ours.extFields() == null || ours.extFields().isEmpty() ? null : ours.extFields();
        assertEquals(theirFields, ourFields);
        assertArrayEquals(theirs.getBody(), ours.body());
    }

    @Test
    void codesAndVersionsMatchRocketMQ() throws Exception {
        assertConstantsMatch(org.apache.rocketmq.remoting.protocol.RequestCode.class, RequestCode.class);
        assertConstantsMatch(org.apache.rocketmq.remoting.protocol.ResponseCode.class, ResponseCode.class);
        assertEquals(MQVersion.CURRENT_VERSION, RemotingVersion.CURRENT);
        assertEquals(MQVersion.Version.V5_1_4.ordinal(), RemotingVersion.V5_1_4);
        for (org.apache.rocketmq.remoting.protocol.LanguageCode theirs
            : org.apache.rocketmq.remoting.protocol.LanguageCode.values()) {
            assertEquals(theirs.name(), LanguageCode.fromCode(theirs.getCode()).name());
        }
    }

    private static void assertConstantsMatch(Class<?> theirs, Class<?> ours) throws Exception {
        int count = 0;
        for (Class<?> c = theirs; c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) && Modifier.isPublic(f.getModifiers())) {
                    Field mine = ours.getField(f.getName());
                    assertEquals(((Number) f.get(null)).intValue(), mine.getInt(null), f.getName());
                    count++;
                }
            }
        }
        int declared = 0;
        for (Field f : ours.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && Modifier.isPublic(f.getModifiers())) {
                declared++;
            }
        }
        assertEquals(count, declared, "every code of " + theirs.getSimpleName());
    }
}
