package io.basalt.store.commitlog;

import io.basalt.store.MessageProperties;
import io.basalt.store.StoredMessage;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Reads CommitLog records ({@link RecordFormat}). {@link #check} validates the record at a position
 * without trusting any byte of it (recovery feeds it torn tails and garbage) and extracts the
 * dispatch fields; {@link #decode} reads a whole message. Both read V1 and V2 records.
 *
 * <p>Stateless; safe for any thread. Buffers are read with absolute gets; {@code check} never moves
 * the buffer's position.
 */
public final class MessageRecordDecoder {
    /** Shortest possible message record: IPv4 hosts, empty body, 1-byte topic, no properties. */
    static final int MIN_RECORD_LENGTH = RecordFormat.recordLength(0, 0, 1, 0);
    private static final byte[] RECORD_CRC_NAME =
        RecordFormat.RECORD_CRC_PROPERTY.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    static final int NAME_AND_SEPARATOR = RECORD_CRC_NAME.length + 1;

    /**
     * Validates the record at {@code buffer.position()}; the readable bytes end at {@code buffer.limit()}.
     * Checks length bounds, magic, that the field lengths add up to TOTALSIZE and, when
     * {@code checkCrc}, the body CRC. An END_OF_FILE marker is reported with its length (only its
     * 8-byte header has to be readable); the caller checks that it reaches the end of the file.
     */
    public RecordCheck check(ByteBuffer buffer, boolean checkCrc) {
        return check(buffer, checkCrc, false);
    }

    /**
     * As {@link #check(ByteBuffer, boolean)}; in addition, with {@code requireRecordCrc} a record
     * must end with the record CRC property, and with {@code checkCrc} that CRC is verified whenever
     * the property is there. Recovery requires it for the part of the log written with it: a record
     * torn in its topic or properties passes the body CRC but not this one.
     */
    public RecordCheck check(ByteBuffer buffer, boolean checkCrc, boolean requireRecordCrc) {
        final int start = buffer.position();
        final int available = buffer.limit() - start;
        if (available < 8) {
            return available == 0 ? RecordCheck.truncated("no bytes left")
                : RecordCheck.truncated("only " + available + " bytes left, record header needs 8");
        }
        final int totalSize = buffer.getInt(start);
        final int magic = buffer.getInt(start + RecordFormat.MAGIC_CODE_POSITION);
        if (magic == RecordFormat.BLANK_MAGIC_CODE) {
            if (totalSize < RecordFormat.END_FILE_MIN_BLANK_LENGTH) {
                return RecordCheck.corrupt("END_OF_FILE marker with bad length " + totalSize);
            }
            return RecordCheck.endOfFile(totalSize);
        }
        final int topicLengthSize;
        if (magic == RecordFormat.MESSAGE_MAGIC_CODE) {
            topicLengthSize = 1;
        } else if (magic == RecordFormat.MESSAGE_MAGIC_CODE_V2) {
            topicLengthSize = 2;
        } else if (magic == 0 && totalSize == 0) {
            return RecordCheck.corrupt("zero bytes, no record");
        } else {
            return RecordCheck.corrupt("illegal magic code " + Integer.toHexString(magic));
        }
        if (totalSize < MIN_RECORD_LENGTH) {
            return RecordCheck.corrupt("total size " + totalSize + " below the minimum " + MIN_RECORD_LENGTH);
        }
        if (totalSize > available) {
            return RecordCheck.truncated("total size " + totalSize + " but only " + available + " bytes readable");
        }
        final int end = start + totalSize;
        final int sysFlag = buffer.getInt(start + RecordFormat.SYS_FLAG_POSITION);
        final int bornHostLength = RecordFormat.bornHostAddressLength(sysFlag);
        final int storeHostLength = RecordFormat.storeHostAddressLength(sysFlag);
        final int storeTimestampPos = start + RecordFormat.BORN_HOST_POSITION + bornHostLength + 4;
        final int bodyLengthPos = storeTimestampPos + 8 + storeHostLength + 4 + 4 + 8;
        if (bodyLengthPos + 4 > end) {
            return RecordCheck.corrupt("header longer than total size " + totalSize);
        }
        final int bodyLength = buffer.getInt(bodyLengthPos);
        final int bodyPos = bodyLengthPos + 4;
        if (bodyLength < 0 || bodyLength > end - bodyPos) {
            return RecordCheck.corrupt("body length " + bodyLength + " outside the record");
        }
        final int topicLengthPos = bodyPos + bodyLength;
        if (topicLengthPos + topicLengthSize > end) {
            return RecordCheck.corrupt("topic length outside the record");
        }
        final int topicLength = topicLengthSize == 1 ? buffer.get(topicLengthPos) : buffer.getShort(topicLengthPos);
        final int topicPos = topicLengthPos + topicLengthSize;
        if (topicLength <= 0 || topicPos + topicLength + 2 > end) {
            return RecordCheck.corrupt("topic length " + topicLength + " outside the record");
        }
        final int propertiesLengthPos = topicPos + topicLength;
        final int propertiesLength = buffer.getShort(propertiesLengthPos);
        final int propertiesPos = propertiesLengthPos + 2;
        if (propertiesLength < 0 || propertiesPos + propertiesLength != end) {
            return RecordCheck.corrupt("field lengths add up to " + (propertiesPos + propertiesLength - start)
                + ", total size says " + totalSize);
        }
        final boolean hasRecordCrc = hasRecordCrc(buffer, propertiesPos, propertiesLength);
        if (requireRecordCrc && !hasRecordCrc) {
            return RecordCheck.corrupt("no record CRC property at the end of the record");
        }
        if (checkCrc && hasRecordCrc) {
            int expected = recordCrcValue(buffer, end - RecordFormat.RECORD_CRC_LENGTH + NAME_AND_SEPARATOR);
            int actual = RecordFormat.bodyCrc(buffer, start, totalSize - RecordFormat.RECORD_CRC_LENGTH);
            if (actual != expected) {
                return RecordCheck.corrupt("record CRC " + Integer.toHexString(actual) + " != stored "
                    + Integer.toHexString(expected));
            }
        }
        if (checkCrc) {
            int bodyCrc = buffer.getInt(start + RecordFormat.BODY_CRC_POSITION);
            int actual = RecordFormat.bodyCrc(buffer, bodyPos, bodyLength);
            if (actual != bodyCrc) {
                return RecordCheck.corrupt("body CRC " + Integer.toHexString(actual) + " != stored "
                    + Integer.toHexString(bodyCrc));
            }
        }
        String topic = utf8(buffer, topicPos, topicLength);
        String tags = MessageProperties.find(buffer, propertiesPos, propertiesLength, MessageProperties.TAGS);
        String keys = MessageProperties.find(buffer, propertiesPos, propertiesLength, MessageProperties.KEYS);
        String uniqKey = MessageProperties.find(buffer, propertiesPos, propertiesLength,
            MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX);
        return new RecordCheck(RecordCheck.Status.OK, totalSize, "ok", topic,
            buffer.getInt(start + RecordFormat.QUEUE_ID_POSITION),
            buffer.getLong(start + RecordFormat.QUEUE_OFFSET_POSITION),
            buffer.getLong(start + RecordFormat.PHYSICAL_OFFSET_POSITION),
            MessageProperties.tagsCode(tags),
            buffer.getLong(storeTimestampPos), keys, uniqKey, sysFlag,
            buffer.getLong(start + RecordFormat.BORN_TIMESTAMP_POSITION));
    }

    /** True when the properties end with {@code __CRC32#} \u0001 ten digits \u0002. */
    static boolean hasRecordCrc(ByteBuffer buffer, int propertiesPos, int propertiesLength) {
        if (propertiesLength < RecordFormat.RECORD_CRC_LENGTH) {
            return false;
        }
        int at = propertiesPos + propertiesLength - RecordFormat.RECORD_CRC_LENGTH;
        if (at > propertiesPos && buffer.get(at - 1) != MessageProperties.PROPERTY_SEPARATOR) {
            return false;
        }
        for (int i = 0; i < RECORD_CRC_NAME.length; i++) {
            if (buffer.get(at + i) != RECORD_CRC_NAME[i]) {
                return false;
            }
        }
        if (buffer.get(at + RECORD_CRC_NAME.length) != MessageProperties.NAME_VALUE_SEPARATOR
            || buffer.get(at + RecordFormat.RECORD_CRC_LENGTH - 1) != MessageProperties.PROPERTY_SEPARATOR) {
            return false;
        }
        for (int i = 0; i < 10; i++) {
            byte digit = buffer.get(at + NAME_AND_SEPARATOR + i);
            if (digit < '0' || digit > '9') {
                return false;
            }
        }
        return true;
    }

    /** The CRC written as ten decimal digits, least significant first (RocketMQ's createCrc32). */
    static int recordCrcValue(ByteBuffer buffer, int digitsPos) {
        long value = 0;
        for (int i = 9; i >= 0; i--) {
            value = value * 10 + (buffer.get(digitsPos + i) - '0');
        }
        return (int) value;
    }

    /**
     * A read-only view of the properties bytes ({@code name \u0001 value \u0002}, UTF-8) of the message
     * record at {@code record.position()}, without decoding anything else; null when the record's field
     * lengths do not lead to properties inside it. Any thread; the buffer's position is unchanged.
     */
    public static ByteBuffer properties(ByteBuffer record) {
        int start = record.position();
        int end = record.limit();
        if (end - start < MIN_RECORD_LENGTH) {
            return null;
        }
        int magic = record.getInt(start + RecordFormat.MAGIC_CODE_POSITION);
        int sysFlag = record.getInt(start + RecordFormat.SYS_FLAG_POSITION);
        int storeTimestampPos = start + RecordFormat.BORN_HOST_POSITION + RecordFormat.bornHostAddressLength(sysFlag) + 4;
        int bodyLengthPos = storeTimestampPos + 8 + RecordFormat.storeHostAddressLength(sysFlag) + 4 + 4 + 8;
        if (bodyLengthPos + 4 > end) {
            return null;
        }
        int topicLengthPos = bodyLengthPos + 4 + record.getInt(bodyLengthPos);
        boolean v2 = magic == RecordFormat.MESSAGE_MAGIC_CODE_V2;
        if (topicLengthPos < bodyLengthPos + 4 || topicLengthPos + (v2 ? 2 : 1) > end) {
            return null;
        }
        int topicLength = v2 ? record.getShort(topicLengthPos) : record.get(topicLengthPos);
        int propertiesLengthPos = topicLengthPos + (v2 ? 2 : 1) + topicLength;
        if (topicLength < 0 || propertiesLengthPos + 2 > end) {
            return null;
        }
        int propertiesLength = record.getShort(propertiesLengthPos);
        int propertiesPos = propertiesLengthPos + 2;
        if (propertiesLength < 0 || propertiesPos + propertiesLength > end) {
            return null;
        }
        return record.slice(propertiesPos, propertiesLength).asReadOnlyBuffer();
    }

    /**
     * Decodes the whole message record at {@code buffer.position()} and moves the position past it.
     *
     * @throws IllegalArgumentException if no valid message record starts there (CRC not checked), or a
     *                                  host port is out of range
     */
    public static StoredMessage decode(ByteBuffer buffer) {
        RecordCheck check = new MessageRecordDecoder().check(buffer, false);
        if (!check.isOk()) {
            throw new IllegalArgumentException("no message record at position " + buffer.position() + ": "
                + check.reason());
        }
        int start = buffer.position();
        ByteBuffer b = buffer.duplicate();
        int storeSize = b.getInt();
        int magic = b.getInt();
        int bodyCrc = b.getInt();
        int queueId = b.getInt();
        int flag = b.getInt();
        long queueOffset = b.getLong();
        long physicalOffset = b.getLong();
        int sysFlag = b.getInt();
        long bornTimestamp = b.getLong();
        InetSocketAddress bornHost = readHost(b, RecordFormat.bornHostAddressLength(sysFlag));
        long storeTimestamp = b.getLong();
        InetSocketAddress storeHost = readHost(b, RecordFormat.storeHostAddressLength(sysFlag));
        int reconsumeTimes = b.getInt();
        long preparedTransactionOffset = b.getLong();
        byte[] body = new byte[b.getInt()];
        b.get(body);
        int topicLength = magic == RecordFormat.MESSAGE_MAGIC_CODE_V2 ? b.getShort() : b.get();
        String topic = utf8(b, b.position(), topicLength);
        b.position(b.position() + topicLength);
        int propertiesLength = b.getShort();
        String properties = utf8(b, b.position(), propertiesLength);
        buffer.position(start + storeSize);
        return new StoredMessage(storeSize, magic, bodyCrc, queueId, flag, queueOffset, physicalOffset, sysFlag,
            bornTimestamp, bornHost, storeTimestamp, storeHost, reconsumeTimes, preparedTransactionOffset, body,
            topic, properties);
    }

    private static InetSocketAddress readHost(ByteBuffer b, int addressLength) {
        byte[] address = new byte[addressLength];
        b.get(address);
        int port = b.getInt();
        try {
            return new InetSocketAddress(InetAddress.getByAddress(address), port);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("bad host address length " + addressLength, e);
        }
    }

    private static String utf8(ByteBuffer buffer, int position, int length) {
        byte[] bytes = new byte[length];
        buffer.get(position, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
