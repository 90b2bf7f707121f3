package io.basalt.store.commitlog;

import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32;

/**
 * Writes CommitLog records ({@link RecordFormat}, V1 magic) straight into the target buffer, which is
 * normally the mapped file or the transient write buffer at the append position. Nothing is
 * allocated: topic and properties bytes, body CRC and flags were prepared by {@link BrokerMessage}.
 *
 * <p>Not thread-safe: one instance per appending thread, or used under the put lock. The caller
 * checks with {@link #validate} before the append and makes sure the record plus
 * {@link RecordFormat#END_FILE_MIN_BLANK_LENGTH} fits in the file, else writes the END_OF_FILE marker.
 */
public final class MessageRecordEncoder {
    private static final MessageInternals.Access INTERNALS = MessageInternals.access();
    private static final byte[] RECORD_CRC_NAME = RecordFormat.RECORD_CRC_PROPERTY.getBytes(StandardCharsets.US_ASCII);

    private final CRC32 recordCrc = new CRC32();

    /** Total bytes of the encoded record of {@code m}. */
    public static int recordLength(BrokerMessage m) {
        return m.recordLength();
    }

    /** Total bytes of a batch: each message is a record of its own. */
    public static int batchLength(List<BrokerMessage> batch) {
        int total = 0;
        for (int i = 0, n = batch.size(); i < n; i++) {
            total += batch.get(i).recordLength();
        }
        return total;
    }

    /**
     * Checks the limits RocketMQ enforces before an append. {@code maxMessageSize} is the store's
     * maxMessageSize (a limit on the body; the whole record may be 64 KiB larger), {@code fileSize}
     * the CommitLog file size. Returns {@link MessageViolation#NONE} when the message can be stored.
     */
    public static MessageViolation validate(BrokerMessage m, int maxMessageSize, int fileSize) {
        if (m.topicLength() == 0) {
            return MessageViolation.TOPIC_EMPTY;
        }
        if (m.topicLength() > RecordFormat.MAX_TOPIC_LENGTH) {
            return MessageViolation.TOPIC_TOO_LONG;
        }
        if (m.propertiesLength() > RecordFormat.MAX_PROPERTIES_LENGTH) {
            return MessageViolation.PROPERTIES_TOO_LONG;
        }
        if (m.body().length > maxMessageSize) {
            return MessageViolation.BODY_TOO_LARGE;
        }
        long maxRecord = Math.min(Integer.MAX_VALUE, (long) maxMessageSize + RecordFormat.NON_BODY_RESERVE);
        if (m.recordLength() > maxRecord) {
            return MessageViolation.RECORD_TOO_LARGE;
        }
        if ((long) m.recordLength() + RecordFormat.END_FILE_MIN_BLANK_LENGTH > fileSize) {
            return MessageViolation.LARGER_THAN_FILE;
        }
        return MessageViolation.NONE;
    }

    /**
     * Validates every message of a batch; the first violation found, or NONE. The batch as a whole
     * must also fit into one file, since it is appended at once.
     */
    public static MessageViolation validateBatch(List<BrokerMessage> batch, int maxMessageSize, int fileSize) {
        for (int i = 0, n = batch.size(); i < n; i++) {
            MessageViolation v = validate(batch.get(i), maxMessageSize, fileSize);
            if (v != MessageViolation.NONE) {
                return v;
            }
        }
        if ((long) batchLength(batch) + RecordFormat.END_FILE_MIN_BLANK_LENGTH > fileSize) {
            return MessageViolation.LARGER_THAN_FILE;
        }
        return MessageViolation.NONE;
    }

    /**
     * Encodes {@code m} at {@code target.position()} and advances the position by the record
     * length, which is returned. Also records the assigned offsets and timestamp in {@code m}.
     *
     * @throws java.nio.BufferOverflowException if the record does not fit; nothing useful is written then
     */
    public int encode(BrokerMessage m, long physicalOffset, long queueOffset, long storeTimestamp, ByteBuffer target) {
        int length = m.recordLength();
        if (target.remaining() < length) {
            throw new java.nio.BufferOverflowException();
        }
        int start = target.position();
        target.putInt(length);
        target.putInt(RecordFormat.MESSAGE_MAGIC_CODE);
        target.putInt(m.bodyCrc());
        target.putInt(m.queueId());
        target.putInt(m.flag());
        target.putLong(queueOffset);
        target.putLong(physicalOffset);
        target.putInt(m.sysFlag());
        target.putLong(m.bornTimestamp());
        target.put(INTERNALS.bornHostAddress(m));
        target.putInt(m.bornHostPort());
        target.putLong(storeTimestamp);
        target.put(INTERNALS.storeHostAddress(m));
        target.putInt(m.storeHostPort());
        target.putInt(m.reconsumeTimes());
        target.putLong(m.preparedTransactionOffset());
        byte[] body = m.body();
        target.putInt(body.length);
        target.put(body);
        byte[] topic = INTERNALS.topicBytes(m);
        target.put((byte) topic.length);
        target.put(topic);
        byte[] properties = INTERNALS.propertiesBytes(m);
        target.putShort((short) m.propertiesLength());
        target.put(properties);
        if (m.recordCrc()) {
            if (INTERNALS.appendPropertySeparator(m)) {
                target.put((byte) MessageProperties.PROPERTY_SEPARATOR);
            }
            putRecordCrc(target, start);
        }
        INTERNALS.assigned(m, physicalOffset, queueOffset, storeTimestamp);
        return length;
    }

    /** Appends the record CRC property, covering {@code [start, target.position())}. */
    private void putRecordCrc(ByteBuffer target, int start) {
        int end = target.position();
        int limit = target.limit();
        recordCrc.reset();
        target.limit(end).position(start);
        recordCrc.update(target);
        target.limit(limit);
        int crc = (int) (recordCrc.getValue() & 0x7FFFFFFF);
        target.put(RECORD_CRC_NAME);
        target.put((byte) MessageProperties.NAME_VALUE_SEPARATOR);
        for (int i = 0; i < 10; i++) {
            target.put((byte) ('0' + crc % 10));
            crc /= 10;
        }
        target.put((byte) MessageProperties.PROPERTY_SEPARATOR);
    }

    /**
     * Encodes a batch as consecutive records from {@code target.position()}: message i gets
     * queue offset {@code firstQueueOffset + i} and the physical offset where its record starts.
     * All messages of a batch go to one (topic, queueId) in RocketMQ; the caller assigns queue
     * offsets accordingly. Returns the total bytes written.
     */
    public int encodeBatch(List<BrokerMessage> batch, long physicalOffset, long firstQueueOffset, long storeTimestamp,
                           ByteBuffer target) {
        if (target.remaining() < batchLength(batch)) {
            throw new java.nio.BufferOverflowException();
        }
        int written = 0;
        for (int i = 0, n = batch.size(); i < n; i++) {
            written += encode(batch.get(i), physicalOffset + written, firstQueueOffset + i, storeTimestamp, target);
        }
        return written;
    }

    /**
     * Writes the END_OF_FILE marker at {@code target.position()}: {@code length} (the bytes left in
     * the file, at least {@link RecordFormat#END_FILE_MIN_BLANK_LENGTH}) and the blank magic code. The
     * position advances by 8; the bytes after the marker stay as they are (zeros in a fresh file).
     */
    public static void writeEndOfFile(ByteBuffer target, int length) {
        if (length < RecordFormat.END_FILE_MIN_BLANK_LENGTH) {
            throw new IllegalArgumentException("END_OF_FILE marker needs at least 8 bytes, got " + length);
        }
        target.putInt(length);
        target.putInt(RecordFormat.BLANK_MAGIC_CODE);
    }
}
