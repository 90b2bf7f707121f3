package io.basalt.store.commitlog;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * The read-path check of one CommitLog record ({@link RecordFormat}): the field lengths that lead to
 * the body and properties, the body CRC, and the record CRC when the record carries one
 * ({@code enabledAppendPropCRC}). Unlike {@link MessageRecordDecoder#check} it decodes no string (topic,
 * tags, keys), builds no result and copies no byte: the CRCs are computed straight over the buffer,
 * a mapped file's memory for a pull, so a good record costs two fixed-offset walks and the CRC loops.
 *
 * <p>Stateless; any thread. The buffer's position and limit are left as they were.
 */
public final class RecordCrcCheck {
    private RecordCrcCheck() {
    }

    /**
     * Why the message record at {@code record.position()} (its bytes readable up to {@code record.limit()})
     * does not match its CRCs or is not a well-formed message record, or null when it is intact.
     */
    public static String damage(ByteBuffer record) {
        final int start = record.position();
        final int available = record.limit() - start;
        if (available < MessageRecordDecoder.MIN_RECORD_LENGTH) {
            return "only " + available + " bytes, a record needs " + MessageRecordDecoder.MIN_RECORD_LENGTH;
        }
        final int totalSize = record.getInt(start + RecordFormat.TOTAL_SIZE_POSITION);
        final int magic = record.getInt(start + RecordFormat.MAGIC_CODE_POSITION);
        final int topicLengthSize;
        if (magic == RecordFormat.MESSAGE_MAGIC_CODE) {
            topicLengthSize = 1;
        } else if (magic == RecordFormat.MESSAGE_MAGIC_CODE_V2) {
            topicLengthSize = 2;
        } else {
            return "illegal magic code " + Integer.toHexString(magic);
        }
        if (totalSize < MessageRecordDecoder.MIN_RECORD_LENGTH || totalSize > available) {
            return "total size " + totalSize + " outside the " + available + " bytes read";
        }
        final int end = start + totalSize;
        final int sysFlag = record.getInt(start + RecordFormat.SYS_FLAG_POSITION);
        final int bodyLengthPos = start + RecordFormat.storeTimestampPosition(sysFlag) + 8
            + RecordFormat.storeHostAddressLength(sysFlag) + 4 + 4 + 8;
        if (bodyLengthPos + 4 > end) {
            return "header longer than total size " + totalSize;
        }
        final int bodyLength = record.getInt(bodyLengthPos);
        final int bodyPos = bodyLengthPos + 4;
        if (bodyLength < 0 || bodyLength > end - bodyPos - topicLengthSize) {
            return "body length " + bodyLength + " outside the record";
        }
        final int topicLengthPos = bodyPos + bodyLength;
        final int topicLength = topicLengthSize == 1 ? record.get(topicLengthPos) : record.getShort(topicLengthPos);
        final int propertiesLengthPos = topicLengthPos + topicLengthSize + topicLength;
        if (topicLength <= 0 || propertiesLengthPos + 2 > end) {
            return "topic length " + topicLength + " outside the record";
        }
        final int propertiesLength = record.getShort(propertiesLengthPos);
        final int propertiesPos = propertiesLengthPos + 2;
        if (propertiesLength < 0 || propertiesPos + propertiesLength != end) {
            return "field lengths add up to " + (propertiesPos + propertiesLength - start)
                + ", total size says " + totalSize;
        }
        if (MessageRecordDecoder.hasRecordCrc(record, propertiesPos, propertiesLength)) {
            int expected = MessageRecordDecoder.recordCrcValue(record,
                end - RecordFormat.RECORD_CRC_LENGTH + MessageRecordDecoder.NAME_AND_SEPARATOR);
            int actual = crc(record, start, end - RecordFormat.RECORD_CRC_LENGTH);
            if (actual != expected) {
                return "record CRC " + Integer.toHexString(actual) + " != stored " + Integer.toHexString(expected);
            }
        }
        int stored = record.getInt(start + RecordFormat.BODY_CRC_POSITION);
        int actual = crc(record, bodyPos, bodyPos + bodyLength);
        if (actual != stored) {
            return "body CRC " + Integer.toHexString(actual) + " != stored " + Integer.toHexString(stored);
        }
        return null;
    }

    /**
     * RocketMQ's CRC ({@code UtilAll.crc32}, sign bit cleared) of {@code [from, to)}: CRC32 reads the
     * bytes in place through a view (direct memory goes to the intrinsic without a copy).
     */
    private static int crc(ByteBuffer record, int from, int to) {
        CRC32 crc = new CRC32();
        crc.update(record.duplicate().limit(to).position(from));
        return (int) (crc.getValue() & 0x7FFFFFFF);
    }
}
