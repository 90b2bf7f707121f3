package io.basalt.broker.pop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.List;

import org.apache.rocketmq.remoting.protocol.body.BatchAck;
import org.apache.rocketmq.remoting.protocol.body.BatchAckMessageRequestBody;
import org.apache.rocketmq.remoting.protocol.header.ExtraInfoUtil;
import org.junit.jupiter.api.Test;

/**
 * The revive topic's records byte for byte as RocketMQ 5.2.0 writes them (the JSON its own classes serialize to),
 * the receipt handle against RocketMQ's ExtraInfoUtil, and the batch ACK body as RocketMQ's client writes it.
 */
class PopRecordFormatsTest {

    @Test
    void checkPointIsRocketMqsJson() {
        CheckPoint ck = new CheckPoint(100, 1700000000000L, 60000, 3, 1, "T", "cg", -1, List.of(0, 1, 3), "broker-a");
        assertEquals("{\"bm\":0,\"bn\":\"broker-a\",\"c\":\"cg\",\"d\":[0,1,3],\"it\":60000,\"n\":3,"
            + "\"pt\":1700000000000,\"q\":1,\"reviveTime\":1700000060000,\"ro\":0,\"so\":100,\"t\":\"T\"}", ck.toJson());
        CheckPoint read = CheckPoint.fromJson(ck.toJson().getBytes(StandardCharsets.UTF_8));
        assertEquals(ck, read);
        assertEquals(103, read.offset(2));
        assertEquals(2, read.indexOf(103));
        assertEquals(-1, read.indexOf(102));
        assertEquals("T@1@100@cg@1700000000000@broker-a@ck", ck.uniqKey());
    }

    @Test
    void checkPointWithoutDiffsCoversContiguousOffsets() {
        CheckPoint read = CheckPoint.fromJson(("{\"bm\":0,\"c\":\"cg\",\"it\":60000,\"n\":2,\"pt\":1,\"q\":0,"
            + "\"so\":7,\"t\":\"T\"}").getBytes(StandardCharsets.UTF_8));
        assertEquals(List.of(0, 1), read.diffs());
        assertEquals(8, read.offset(1));
    }

    @Test
    void ackAndBatchAckAreRocketMqsJson() {
        PopRecords.Ack ack = new PopRecords.Ack(101, 100, "cg", "T", 1, 1700000000000L, "broker-a");
        assertEquals("{\"ao\":101,\"bn\":\"broker-a\",\"c\":\"cg\",\"pt\":1700000000000,\"q\":1,\"so\":100,\"t\":\"T\"}",
            ack.toJson());
        assertEquals(ack, PopRecords.Ack.fromJson(ack.toJson().getBytes(StandardCharsets.UTF_8)));
        assertEquals("T@1@101@cg@1700000000000@broker-a@ack", ack.uniqKey());
        PopRecords.BatchAck batch = new PopRecords.BatchAck(List.of(100L, 103L), 100, "cg", "T", 1, 1700000000000L);
        assertEquals("{\"ao\":0,\"aol\":[100,103],\"c\":\"cg\",\"pt\":1700000000000,\"q\":1,\"so\":100,\"t\":\"T\"}",
            batch.toJson());
        assertEquals(batch, PopRecords.BatchAck.fromJson(batch.toJson().getBytes(StandardCharsets.UTF_8)));
        assertEquals("T@1@[100, 103]@cg@1700000000000@bAck", batch.uniqKey());
        CheckPoint ck = new CheckPoint(100, 1700000000000L, 60000, 3, 1, "T", "cg", -1, List.of(0, 1, 3), "broker-a");
        assertEquals(ck.matchKey(), ack.matchKey());
        assertEquals(ck.matchKey(), batch.matchKey());
    }

    @Test
    void handleIsRocketMqsExtraInfo() {
        String rocketMq = ExtraInfoUtil.buildExtraInfo(100, 1700000000000L, 60000, 3, "T", "broker-a", 1, 101);
        PopHandle handle = PopHandle.decode(rocketMq);
        assertEquals(new PopHandle(100, 1700000000000L, 60000, 3, 0, "broker-a", 1, 101, -1), handle);
        assertEquals(rocketMq, handle.extraInfo());
        String[] split = ExtraInfoUtil.split(handle.extraInfo());
        assertEquals(100, ExtraInfoUtil.getCkQueueOffset(split));
        assertEquals(101, ExtraInfoUtil.getQueueOffset(split));
        assertEquals("%RETRY%cg_T", ExtraInfoUtil.getRealTopic(
            ExtraInfoUtil.split(ExtraInfoUtil.buildExtraInfo(7, 1, 2, 3, "%RETRY%cg_T", "b", 0, 7)), "T", "cg"));
        assertEquals("%RETRY%cg_T", PopHandle.decode(ExtraInfoUtil.buildExtraInfo(7, 1, 2, 3, "%RETRY%cg_T", "b", 0, 7))
            .realTopic("T", "cg"));
        assertEquals("%RETRY%cg+T", new PopHandle(7, 1, 2, 3, 2, "b", 0, 7, -1).realTopic("T", "cg"));
    }

    @Test
    void grpcHandleCarriesTheCommitLogOffsetAndExpires() {
        PopHandle handle = new PopHandle(100, 1000, 500, 3, 1, "broker-a", 0, 101, 123456789);
        assertEquals("100 1000 500 3 1 broker-a 0 101 123456789", handle.encode());
        assertEquals(handle, PopHandle.decode(handle.encode()));
        assertFalse(handle.expired(1499));
        assertTrue(handle.expired(1500));
        assertThrows(IllegalArgumentException.class, () -> PopHandle.decode("1 2 3"));
        assertThrows(IllegalArgumentException.class, () -> PopHandle.decode("a 2 3 4 0 b 1 2"));
    }

    @Test
    void batchAckBodyOfRocketMqsClientIsRead() {
        BatchAck ack = new BatchAck();
        ack.setConsumerGroup("cg");
        ack.setTopic("T");
        ack.setRetry("1");
        ack.setStartOffset(100);
        ack.setQueueId(1);
        ack.setReviveQueueId(3);
        ack.setPopTime(1700000000000L);
        ack.setInvisibleTime(60000);
        BitSet bits = new BitSet();
        bits.set(0);
        bits.set(3);
        ack.setBitSet(bits);
        BatchAckMessageRequestBody body = new BatchAckMessageRequestBody();
        body.setBrokerName("broker-a");
        body.setAcks(List.of(ack));
        List<PopService.BatchAckEntry> entries = PopRemotingProcessor.batchEntries(body.encode());
        assertEquals(List.of(new PopService.BatchAckEntry("cg", "T", 1, 100, 1, 3, 1700000000000L, 60000, bits)),
            entries);
    }
}
