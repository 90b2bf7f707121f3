package io.basalt.store.commitlog;

import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageBatchDecoder;
import io.basalt.store.StoredMessage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageExtBrokerInner;
import org.apache.rocketmq.common.message.MessageId;
import org.apache.rocketmq.common.sysflag.MessageSysFlag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Basalt's records against RocketMQ 5.2.0's own codec, in both directions. */
class RocketMqRecordGoldenTest {

    @ParameterizedTest(name = "born {0}, store {1}")
    @CsvSource({"10.1.2.3,192.168.7.8", "fe80::1,2001:db8::42", "10.1.2.3,2001:db8::42"})
    void basaltRecordDecodesWithRocketMq(String bornHost, String storeHost) throws Exception {
        BrokerMessage m = MessageRecordCodecTest.message("GoldenTopic", "body-ü".getBytes(StandardCharsets.UTF_8),
            bornHost, storeHost);
        ByteBuffer buf = ByteBuffer.allocate(1024);
        new MessageRecordEncoder().encode(m, 123_456_789L, 42, 1_700_000_000_999L, buf);
        buf.flip();

        MessageExt ext = MessageDecoder.decode(buf, true, true, false, false, true);
        assertNotNull(ext, "RocketMQ could not decode the record");
        assertEquals(m.recordLength(), ext.getStoreSize());
        assertEquals("GoldenTopic", ext.getTopic());
        assertEquals(3, ext.getQueueId());
        assertEquals(5, ext.getFlag());
        assertEquals(42, ext.getQueueOffset());
        assertEquals(123_456_789L, ext.getCommitLogOffset());
        assertEquals(m.sysFlag(), ext.getSysFlag());
        assertEquals(1_700_000_000_000L, ext.getBornTimestamp());
        assertEquals(1_700_000_000_999L, ext.getStoreTimestamp());
        assertEquals(new InetSocketAddress(InetAddress.getByName(bornHost), 50123), ext.getBornHost());
        assertEquals(new InetSocketAddress(InetAddress.getByName(storeHost), 10911), ext.getStoreHost());
        assertEquals(2, ext.getReconsumeTimes());
        assertEquals(77, ext.getPreparedTransactionOffset());
        assertArrayEquals("body-ü".getBytes(StandardCharsets.UTF_8), ext.getBody());
        assertEquals(m.bodyCrc(), ext.getBodyCRC());
        assertEquals(ext.getBodyCRC(), org.apache.rocketmq.common.UtilAll.crc32(ext.getBody()));
        assertEquals("TagA", ext.getTags());
        assertEquals("k1 k2", ext.getKeys());
        assertEquals(MessageExtBrokerInner.tagsString2tagsCode(ext.getTags()), m.tagsCode());
        assertEquals(ext.getMsgId(), m.offsetMsgId(), "offset msg id");
        // The record CRC property as RocketMQ's forceVerifyPropCRC reads it: digits least significant
        // first, over the record without its last RECORD_CRC_LENGTH bytes.
        String digits = ext.getProperty(RecordFormat.RECORD_CRC_PROPERTY);
        assertEquals(10, digits.length());
        int expected = 0;
        for (int i = digits.length() - 1; i >= 0; i--) {
            expected = expected * 10 + (digits.charAt(i) - '0');
        }
        ByteBuffer covered = buf.duplicate().position(0).limit(m.recordLength() - RecordFormat.RECORD_CRC_LENGTH);
        assertEquals(org.apache.rocketmq.common.UtilAll.crc32(covered), expected);
    }

    @ParameterizedTest(name = "born {0}, store {1}")
    @CsvSource({"10.1.2.3,192.168.7.8", "fe80::1,2001:db8::42"})
    void rocketMqRecordDecodesWithBasalt(String bornHost, String storeHost) throws Exception {
        MessageExt ext = new MessageExt();
        ext.setTopic("FromRocketMQ");
        ext.setQueueId(7);
        ext.setFlag(9);
        ext.setQueueOffset(1234);
        ext.setCommitLogOffset(987_654_321L);
        int sysFlag = 0;
        InetSocketAddress born = new InetSocketAddress(InetAddress.getByName(bornHost), 4000);
        InetSocketAddress store = new InetSocketAddress(InetAddress.getByName(storeHost), 10911);
        if (born.getAddress().getAddress().length == 16) {
            sysFlag |= MessageSysFlag.BORNHOST_V6_FLAG;
        }
        if (store.getAddress().getAddress().length == 16) {
            sysFlag |= MessageSysFlag.STOREHOSTADDRESS_V6_FLAG;
        }
        ext.setSysFlag(sysFlag);
        ext.setBornHost(born);
        ext.setStoreHost(store);
        ext.setBornTimestamp(11);
        ext.setStoreTimestamp(22);
        ext.setReconsumeTimes(1);
        ext.setPreparedTransactionOffset(3);
        byte[] body = "from rocketmq".getBytes(StandardCharsets.UTF_8);
        ext.setBody(body);
        ext.setBodyCRC(org.apache.rocketmq.common.UtilAll.crc32(body));
        ext.setTags("TagX");
        ext.setKeys("key");
        byte[] record = MessageDecoder.encode(ext, false);

        RecordCheck check = new MessageRecordDecoder().check(ByteBuffer.wrap(record), true);
        assertTrue(check.isOk(), check.reason());
        assertEquals(record.length, check.size());
        assertEquals("FromRocketMQ", check.topic());
        assertEquals(1234, check.queueOffset());
        assertEquals(987_654_321L, check.physicalOffset());
        assertEquals("TagX".hashCode(), check.tagsCode());
        assertEquals("key", check.keys());
        assertEquals(22, check.storeTimestamp());

        StoredMessage s = MessageRecordDecoder.decode(ByteBuffer.wrap(record));
        assertEquals(born, s.bornHost());
        assertEquals(store, s.storeHost());
        assertEquals(9, s.flag());
        assertEquals(1, s.reconsumeTimes());
        assertEquals(3, s.preparedTransactionOffset());
        assertArrayEquals(body, s.body());
        assertEquals(Map.of("TAGS", "TagX", "KEYS", "key"), s.propertyMap());

        // A RocketMQ record (no record CRC property) is refused where Basalt requires that CRC.
        assertEquals(RecordCheck.Status.CORRUPT,
            new MessageRecordDecoder().check(ByteBuffer.wrap(record), true, true).status());

        // Re-encoding the decoded message with Basalt gives RocketMQ's bytes back.
        BrokerMessage again = BrokerMessage.builder().topic(s.topic()).queueId(s.queueId()).flag(s.flag())
            .body(s.body()).propertiesString(s.properties()).bornTimestamp(s.bornTimestamp()).bornHost(s.bornHost())
            .storeHost(s.storeHost()).sysFlag(s.sysFlag()).reconsumeTimes(s.reconsumeTimes())
            .preparedTransactionOffset(s.preparedTransactionOffset()).build();
        ByteBuffer out = ByteBuffer.allocate(record.length);
        new MessageRecordEncoder().encode(again, s.physicalOffset(), s.queueOffset(), s.storeTimestamp(), out);
        assertArrayEquals(record, out.array());
    }

    @org.junit.jupiter.api.Test
    void rocketMqBatchBodySplitsIntoRecordsRocketMqDecodes() throws Exception {
        java.util.List<org.apache.rocketmq.common.message.Message> msgs = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            org.apache.rocketmq.common.message.Message m = new org.apache.rocketmq.common.message.Message(
                "BatchTopic", "tag" + i, "key" + i, ("body" + i).getBytes(StandardCharsets.UTF_8));
            m.setFlag(i);
            msgs.add(m);
        }
        byte[] body = MessageDecoder.encodeMessages(msgs);
        InetSocketAddress host = new InetSocketAddress(InetAddress.getByName("10.0.0.5"), 10911);
        java.util.List<BrokerMessage> batch = MessageBatchDecoder.decode(ByteBuffer.wrap(body), "WAIT\u0001true\u0002",
            b -> b.topic("BatchTopic").queueId(1).bornHost(host).storeHost(host).bornTimestamp(5));
        assertEquals(3, batch.size());
        ByteBuffer buf = ByteBuffer.allocate(MessageRecordEncoder.batchLength(batch));
        new MessageRecordEncoder().encodeBatch(batch, 1000, 10, 6, buf);
        buf.flip();
        java.util.List<MessageExt> decoded = MessageDecoder.decodes(buf);
        assertEquals(3, decoded.size());
        for (int i = 0; i < 3; i++) {
            MessageExt ext = decoded.get(i);
            assertEquals("body" + i, new String(ext.getBody(), StandardCharsets.UTF_8));
            assertEquals("tag" + i, ext.getTags());
            assertEquals("key" + i, ext.getKeys());
            assertEquals("true", ext.getProperty("WAIT"));
            assertEquals(i, ext.getFlag());
            assertEquals(10 + i, ext.getQueueOffset());
            assertEquals(org.apache.rocketmq.common.UtilAll.crc32(ext.getBody()), ext.getBodyCRC());
        }
        assertEquals(1000 + decoded.get(0).getStoreSize(), decoded.get(1).getCommitLogOffset());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> MessageBatchDecoder.decode(
            ByteBuffer.wrap(java.util.Arrays.copyOf(body, body.length - 3)), "", b -> b.topic("T")));
    }

    @org.junit.jupiter.api.Test
    void v2RecordWithLongTopicIsReadLikeRocketMqReadsIt() throws Exception {
        String topic = "t".repeat(200);
        BrokerMessage m = MessageRecordCodecTest.message("x", "v2 body".getBytes(StandardCharsets.UTF_8), "10.0.0.1",
            "10.0.0.2");
        ByteBuffer v1 = ByteBuffer.allocate(1024);
        int v1Length = new MessageRecordEncoder().encode(m, 64, 3, 9, v1);
        // Rebuild as V2: same fields, 2-byte topic length, a 200-byte topic.
        int topicLengthPos = v1Length - 2 - m.propertiesLength() - 1 - 1;
        byte[] topicBytes = topic.getBytes(StandardCharsets.UTF_8);
        byte[] properties = m.propertiesString().getBytes(StandardCharsets.UTF_8);   // as RocketMQ stores them
        ByteBuffer v2 = ByteBuffer.allocate(topicLengthPos + 2 + topicBytes.length + 2 + properties.length);
        v2.put(v1.array(), 0, topicLengthPos).putShort((short) topicBytes.length).put(topicBytes)
            .putShort((short) properties.length).put(properties);
        v2.putInt(0, v2.capacity()).putInt(RecordFormat.MAGIC_CODE_POSITION, RecordFormat.MESSAGE_MAGIC_CODE_V2);
        v2.flip();

        RecordCheck check = new MessageRecordDecoder().check(v2, true);
        assertTrue(check.isOk(), check.reason());
        assertEquals(topic, check.topic());
        StoredMessage s = MessageRecordDecoder.decode(v2.duplicate());
        assertEquals(RecordFormat.MESSAGE_MAGIC_CODE_V2, s.magicCode());
        assertEquals(topic, s.topic());
        MessageExt ext = MessageDecoder.decode(v2.duplicate(), true, true, false, false, true);
        assertNotNull(ext);
        assertEquals(topic, ext.getTopic());
        assertArrayEquals(s.body(), ext.getBody());
        assertEquals(check.tagsCode(), MessageExtBrokerInner.tagsString2tagsCode(ext.getTags()));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"10.20.30.40", "2001:db8::99"})
    void offsetMessageIdMatchesRocketMq(String host) throws Exception {
        InetSocketAddress address = new InetSocketAddress(InetAddress.getByName(host), 10911);
        long offset = 0x00000ABCDEF01234L;
        String rocketmq = MessageDecoder.createMessageId(address, offset);
        assertEquals(rocketmq, OffsetMessageId.encode(address, offset));
        MessageId decoded = MessageDecoder.decodeMessageId(OffsetMessageId.encode(address, offset));
        assertEquals(address, decoded.getAddress());
        assertEquals(offset, decoded.getOffset());
        assertEquals(new OffsetMessageId(address, offset), OffsetMessageId.decode(rocketmq));
    }
}
