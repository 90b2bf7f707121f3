package io.basalt.store.commitlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import io.basalt.store.BrokerMessage;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The read-path check agrees with the full decoder's CRC check on every single-bit flip of a record. */
class RecordCrcCheckTest {
    private static final int AT = 16;

    @ParameterizedTest
    @CsvSource({"10.1.2.3, 192.168.0.9, true", "10.1.2.3, 192.168.0.9, false", "::1, fe80::2, true", "::1, fe80::2, false"})
    void everyBitFlipIsJudgedAsTheDecoderJudgesIt(String bornHost, String storeHost, boolean recordCrc) throws Exception {
        BrokerMessage m = MessageRecordCodecTest.message("TopicTest", "a body of some bytes".getBytes(StandardCharsets.UTF_8),
            bornHost, storeHost).toBuilder().recordCrc(recordCrc).build();
        ByteBuffer record = ByteBuffer.allocateDirect(1024);
        record.position(AT);
        int length = new MessageRecordEncoder().encode(m, 4096, 9, 1_700_000_000_123L, record);
        record.limit(AT + length).position(AT);
        assertNull(RecordCrcCheck.damage(record), "an intact record");
        MessageRecordDecoder decoder = new MessageRecordDecoder();
        int corrupt = 0;
        for (int i = AT; i < AT + length; i++) {
            for (int bit = 0; bit < 8; bit++) {
                record.put(i, (byte) (record.get(i) ^ (1 << bit)));
                String damage = RecordCrcCheck.damage(record);
                RecordCheck full = decoder.check(record.duplicate(), true);
                assertEquals(full.isOk(), damage == null, "byte " + (i - AT) + " bit " + bit + ": " + damage + " / " + full.reason());
                corrupt += damage == null ? 0 : 1;
                record.put(i, (byte) (record.get(i) ^ (1 << bit)));
                assertEquals(AT, record.position(), "position unchanged");
                assertEquals(AT + length, record.limit(), "limit unchanged");
            }
        }
        assertTrue(corrupt > 0);
        assertNull(RecordCrcCheck.damage(record), "restored");
    }
}
