package io.basalt.store.commitlog;

import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.StoredMessage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class MessageRecordCodecTest {
    private final MessageRecordEncoder encoder = new MessageRecordEncoder();
    private final MessageRecordDecoder decoder = new MessageRecordDecoder();

    static BrokerMessage message(String topic, byte[] body, String bornHost, String storeHost) throws Exception {
        Map<String, String> props = new LinkedHashMap<>();
        props.put(MessageProperties.TAGS, "TagA");
        props.put(MessageProperties.KEYS, "k1 k2");
        props.put(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX, "7F0000010001");
        return BrokerMessage.builder().topic(topic).queueId(3).flag(5).body(body).properties(props)
            .bornTimestamp(1_700_000_000_000L)
            .bornHost(new InetSocketAddress(InetAddress.getByName(bornHost), 50123))
            .storeHost(new InetSocketAddress(InetAddress.getByName(storeHost), 10911))
            .reconsumeTimes(2).preparedTransactionOffset(77).recordCrc(true).build();
    }

    @Test
    void ipv4RecordRoundTripsEveryField() throws Exception {
        BrokerMessage m = message("TopicTest", "hello".getBytes(StandardCharsets.UTF_8), "10.1.2.3", "192.168.0.9");
        ByteBuffer buf = ByteBuffer.allocate(1024);
        buf.position(16);
        int len = encoder.encode(m, 4096, 9, 1_700_000_000_123L, buf);
        assertEquals(MessageRecordEncoder.recordLength(m), len);
        assertEquals(16 + len, buf.position());
        assertEquals(4096, m.physicalOffset());
        assertEquals(0, m.sysFlag() & (RecordFormat.BORNHOST_V6_FLAG | RecordFormat.STOREHOSTADDRESS_V6_FLAG));

        buf.position(16);
        RecordCheck check = decoder.check(buf, true);
        assertEquals(RecordCheck.Status.OK, check.status());
        assertEquals(16, buf.position(), "check does not move the position");
        assertEquals(len, check.size());
        assertEquals("TopicTest", check.topic());
        assertEquals(3, check.queueId());
        assertEquals(9, check.queueOffset());
        assertEquals(4096, check.physicalOffset());
        assertEquals("TagA".hashCode(), check.tagsCode());
        assertEquals("k1 k2", check.keys());
        assertEquals("7F0000010001", check.uniqKey());
        assertEquals(1_700_000_000_123L, check.storeTimestamp());
        assertEquals(1_700_000_000_000L, check.bornTimestamp());

        StoredMessage s = MessageRecordDecoder.decode(buf);
        assertEquals(16 + len, buf.position());
        assertEquals(RecordFormat.MESSAGE_MAGIC_CODE, s.magicCode());
        assertEquals(m.bodyCrc(), s.bodyCrc());
        assertEquals(5, s.flag());
        assertEquals(2, s.reconsumeTimes());
        assertEquals(77, s.preparedTransactionOffset());
        assertArrayEquals("hello".getBytes(StandardCharsets.UTF_8), s.body());
        assertEquals(new InetSocketAddress(InetAddress.getByName("10.1.2.3"), 50123), s.bornHost());
        assertEquals(new InetSocketAddress(InetAddress.getByName("192.168.0.9"), 10911), s.storeHost());
        assertEquals("TagA", s.property(MessageProperties.TAGS));
        assertEquals(m.offsetMsgId(), s.offsetMsgId());
    }

    @Test
    void ipv6HostsSetTheSysFlagBitsAndWidenTheRecord() throws Exception {
        BrokerMessage v4 = message("T", new byte[10], "10.1.2.3", "10.1.2.4");
        BrokerMessage v6 = message("T", new byte[10], "fe80::1", "2001:db8::7");
        assertEquals(v4.recordLength() + 24, v6.recordLength());
        assertEquals(RecordFormat.BORNHOST_V6_FLAG | RecordFormat.STOREHOSTADDRESS_V6_FLAG, v6.sysFlag());
        ByteBuffer buf = ByteBuffer.allocate(512);
        encoder.encode(v6, 0, 0, 1, buf);
        buf.flip();
        assertTrue(decoder.check(buf, true).isOk());
        StoredMessage s = MessageRecordDecoder.decode(buf);
        assertEquals(InetAddress.getByName("2001:db8::7"), s.storeHost().getAddress());
        assertEquals(56, s.offsetMsgId().length());
    }

    @Test
    void batchIsOneRecordPerMessageWithConsecutiveOffsets() throws Exception {
        List<BrokerMessage> batch = List.of(message("B", new byte[1], "1.1.1.1", "2.2.2.2"),
            message("B", new byte[200], "1.1.1.1", "2.2.2.2"), message("B", new byte[0], "1.1.1.1", "2.2.2.2"));
        ByteBuffer buf = ByteBuffer.allocate(2048);
        int total = encoder.encodeBatch(batch, 1000, 40, 5, buf);
        assertEquals(MessageRecordEncoder.batchLength(batch), total);
        buf.flip();
        long physical = 1000;
        for (int i = 0; i < 3; i++) {
            RecordCheck c = decoder.check(buf, true);
            assertTrue(c.isOk(), c.reason());
            assertEquals(40 + i, c.queueOffset());
            assertEquals(physical, c.physicalOffset());
            assertEquals(physical, batch.get(i).physicalOffset());
            physical += c.size();
            buf.position(buf.position() + c.size());
        }
        assertEquals(total, buf.position());
    }

    @Test
    void recordCrcIsOptionalAndAddsTwentyBytes() throws Exception {
        BrokerMessage.Builder b = BrokerMessage.builder().topic("T").body(new byte[7]).propertiesString("A\u0001b");
        BrokerMessage plain = b.build();
        BrokerMessage withCrc = b.recordCrc(true).build();
        assertEquals(RecordFormat.recordLength(0, 7, 1, 3), plain.recordLength(), "RocketMQ's default format");
        assertEquals(plain.recordLength() + 1 + RecordFormat.RECORD_CRC_LENGTH, withCrc.recordLength(),
            "the missing final separator is added before the CRC property");
        ByteBuffer buf = ByteBuffer.allocate(256);
        encoder.encode(withCrc, 0, 0, 1, buf);
        buf.flip();
        assertTrue(decoder.check(buf, true, true).isOk());
        assertEquals("b", MessageRecordDecoder.decode(buf.duplicate()).property("A"));
        ByteBuffer plainBuf = ByteBuffer.allocate(256);
        encoder.encode(plain, 0, 0, 1, plainBuf);
        plainBuf.flip();
        assertTrue(decoder.check(plainBuf, true).isOk());
        assertEquals(RecordCheck.Status.CORRUPT, decoder.check(plainBuf, true, true).status());
    }

    @Test
    void endOfFileMarkerIsRecognised() {
        ByteBuffer buf = ByteBuffer.allocate(100);
        buf.position(40);
        MessageRecordEncoder.writeEndOfFile(buf, 60);
        buf.position(40);
        RecordCheck c = decoder.check(buf, true);
        assertEquals(RecordCheck.Status.END_OF_FILE, c.status());
        assertEquals(60, c.size());
        assertThrows(IllegalArgumentException.class, () -> MessageRecordEncoder.writeEndOfFile(buf, 7));
    }

    @Test
    void checkRejectsTornGarbageZerosAndBadCrc() throws Exception {
        BrokerMessage m = message("TopicTest", new byte[100], "10.0.0.1", "10.0.0.2");
        ByteBuffer buf = ByteBuffer.allocate(1024);
        int len = encoder.encode(m, 0, 0, 1, buf);

        ByteBuffer cut = buf.duplicate().position(0).limit(len - 1);
        assertEquals(RecordCheck.Status.TRUNCATED, decoder.check(cut, true).status());
        assertEquals(RecordCheck.Status.TRUNCATED, decoder.check(buf.duplicate().position(0).limit(5), true).status());

        ByteBuffer zeros = ByteBuffer.allocate(512);
        assertEquals(RecordCheck.Status.CORRUPT, decoder.check(zeros, true).status());

        ByteBuffer badCrc = copy(buf, len);
        int bodyPos = len - 2 - m.propertiesLength() - 1 - m.topicLength() - 100;
        badCrc.put(bodyPos + 10, (byte) 1);
        assertEquals(RecordCheck.Status.CORRUPT, decoder.check(badCrc, true).status());
        assertTrue(decoder.check(badCrc, false).isOk(), "without CRC check the record is structurally fine");

        ByteBuffer badLength = copy(buf, len);
        badLength.putShort(len - 2 - m.propertiesLength(), (short) (m.propertiesLength() + 1));
        assertEquals(RecordCheck.Status.CORRUPT, decoder.check(badLength, false).status());

        ByteBuffer badMagic = copy(buf, len);
        badMagic.putInt(4, 0x12345678);
        assertEquals(RecordCheck.Status.CORRUPT, decoder.check(badMagic, false).status());

        ByteBuffer badBodyLength = copy(buf, len);
        badBodyLength.putInt(bodyPos - 4, Integer.MIN_VALUE);
        assertEquals(RecordCheck.Status.CORRUPT, decoder.check(badBodyLength, false).status());
        assertThrows(IllegalArgumentException.class, () -> MessageRecordDecoder.decode(badBodyLength));
    }

    @Test
    void checkSurvivesRandomGarbage() {
        java.util.Random random = new java.util.Random(42);
        byte[] bytes = new byte[4096];
        for (int round = 0; round < 2000; round++) {
            random.nextBytes(bytes);
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            if (round % 2 == 0) {
                buf.putInt(4, RecordFormat.MESSAGE_MAGIC_CODE);
                buf.putInt(0, random.nextInt(4096));
            }
            RecordCheck c = decoder.check(buf, true);
            assertTrue(c.status() != RecordCheck.Status.OK || c.size() <= 4096);
        }
    }

    @Test
    void validateGivesTheReasonRocketMqReportsAsAStatus() throws Exception {
        assertEquals(MessageViolation.NONE, MessageRecordEncoder.validate(message("T", new byte[10], "1.1.1.1", "2.2.2.2"), 1024, 4096));
        assertEquals(MessageViolation.BODY_TOO_LARGE,
            MessageRecordEncoder.validate(message("T", new byte[1025], "1.1.1.1", "2.2.2.2"), 1024, 1 << 20));
        assertEquals(MessageViolation.LARGER_THAN_FILE,
            MessageRecordEncoder.validate(message("T", new byte[1000], "1.1.1.1", "2.2.2.2"), 4096, 1024));
        assertEquals(MessageViolation.TOPIC_TOO_LONG,
            MessageRecordEncoder.validate(message("x".repeat(128), new byte[1], "1.1.1.1", "2.2.2.2"), 1024, 4096));
        assertEquals(MessageViolation.NONE,
            MessageRecordEncoder.validate(message("x".repeat(127), new byte[1], "1.1.1.1", "2.2.2.2"), 1024, 4096));
        BrokerMessage empty = BrokerMessage.builder().topic("").build();
        assertEquals(MessageViolation.TOPIC_EMPTY, MessageRecordEncoder.validate(empty, 1024, 4096));
        BrokerMessage bigProps = BrokerMessage.builder().topic("T")
            .properties(Map.of("big", "v".repeat(Short.MAX_VALUE))).build();
        MessageViolation v = MessageRecordEncoder.validate(bigProps, 1 << 20, 1 << 22);
        assertEquals(MessageViolation.PROPERTIES_TOO_LONG, v);
        assertTrue(v.isPropertiesSizeExceeded());
        assertEquals(MessageViolation.LARGER_THAN_FILE, MessageRecordEncoder.validateBatch(
            List.of(message("T", new byte[600], "1.1.1.1", "2.2.2.2"), message("T", new byte[600], "1.1.1.1", "2.2.2.2")),
            1024, 1024));
    }

    @Test
    void propertiesCodecFollowsRocketMqRules() {
        String s = "A\u0001x\u0002\u0001novalue\u0002B\u0001\u0002C\u0001yz";
        Map<String, String> map = MessageProperties.parse(s);
        assertEquals(Map.of("A", "x", "C", "yz"), map);
        Map<String, String> ordered = new LinkedHashMap<>();
        ordered.put("K", "v");
        ordered.put("N", null);
        assertEquals("K\u0001v\u0002", MessageProperties.toPropertiesString(ordered));
        ByteBuffer bytes = ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
        assertEquals("yz", MessageProperties.find(bytes, 0, bytes.capacity(), "C"));
        assertNull(MessageProperties.find(bytes, 0, bytes.capacity(), "B"));
        assertNull(MessageProperties.find(bytes, 0, bytes.capacity(), "Z"));
    }

    @Test
    void waitPropertyAndRawPropertiesStringAreKept() {
        BrokerMessage m = BrokerMessage.builder().topic("T").propertiesString("WAIT\u0001false\u0002TAGS\u0001t\u0002").build();
        assertEquals(false, m.waitStoreMsgOk());
        assertEquals("t".hashCode(), m.tagsCode());
        assertEquals("WAIT\u0001false\u0002TAGS\u0001t\u0002", m.propertiesString());
        assertEquals(true, BrokerMessage.builder().topic("T").build().waitStoreMsgOk());
    }

    @Test
    void encodingAllocatesNothing() throws Exception {
        java.lang.management.ThreadMXBean bean = java.lang.management.ManagementFactory.getThreadMXBean();
        org.junit.jupiter.api.Assumptions.assumeTrue(bean instanceof com.sun.management.ThreadMXBean);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        org.junit.jupiter.api.Assumptions.assumeTrue(threads.isThreadAllocatedMemoryEnabled());
        BrokerMessage m = message("AllocTopic", new byte[512], "10.0.0.1", "fe80::2");
        List<BrokerMessage> batch = List.of(m, m, m);
        ByteBuffer target = ByteBuffer.allocateDirect(1 << 20);
        long id = Thread.currentThread().getId();
        for (int round = 0; round < 3; round++) {
            long before = threads.getThreadAllocatedBytes(id);
            for (int i = 0; i < 10_000; i++) {
                target.clear();
                encoder.encode(m, i, i, i, target);
                encoder.encodeBatch(batch, i, i, i, target);
            }
            long allocated = threads.getThreadAllocatedBytes(id) - before;
            if (allocated < 1024) {
                return;
            }
        }
        throw new AssertionError("encoding 40,000 records allocated on the heap");
    }

    @Test
    void offsetMessageIdRoundTrips() throws Exception {
        InetSocketAddress v4 = new InetSocketAddress(InetAddress.getByName("10.11.12.13"), 10911);
        String id = OffsetMessageId.encode(v4, 0x0102030405060708L);
        assertEquals("0A0B0C0D00002A9F0102030405060708", id);
        assertEquals(new OffsetMessageId(v4, 0x0102030405060708L), OffsetMessageId.decode(id));
        InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("2001:db8::1"), 8080);
        assertEquals(new OffsetMessageId(v6, 5), OffsetMessageId.decode(OffsetMessageId.encode(v6, 5)));
        assertThrows(IllegalArgumentException.class, () -> OffsetMessageId.decode("1234"));
        assertThrows(IllegalArgumentException.class, () -> OffsetMessageId.decode("ZZ" + id.substring(2)));
        assertEquals(new OffsetMessageId(v4, 0x0102030405060708L), OffsetMessageId.decode(id.toLowerCase()));
        assertThrows(IllegalArgumentException.class, () -> OffsetMessageId.decode("\u0663" + id.substring(1)));
    }

    private static ByteBuffer copy(ByteBuffer src, int len) {
        ByteBuffer b = ByteBuffer.allocate(len);
        b.put(src.duplicate().position(0).limit(len));
        return b.flip();
    }
}
