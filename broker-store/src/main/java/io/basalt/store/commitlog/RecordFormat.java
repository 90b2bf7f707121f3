package io.basalt.store.commitlog;

import io.basalt.store.BrokerMessage;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * Constants of RocketMQ's CommitLog record, the on-disk unit of the log. All integers big-endian.
 *
 * <pre>
 *  pos  size  field
 *    0     4  TOTALSIZE          length of the whole record, this field included
 *    4     4  MAGICCODE          {@link #MESSAGE_MAGIC_CODE} (V1) or {@link #MESSAGE_MAGIC_CODE_V2}
 *    8     4  BODYCRC            CRC32 of the body &amp; 0x7FFFFFFF
 *   12     4  QUEUEID
 *   16     4  FLAG
 *   20     8  QUEUEOFFSET        logical offset in (topic, queueId)
 *   28     8  PHYSICALOFFSET     global CommitLog offset of this record
 *   36     4  SYSFLAG            bit 4: born host IPv6, bit 5: store host IPv6, see {@link #BORNHOST_V6_FLAG}
 *   40     8  BORNTIMESTAMP
 *   48   8|20 BORNHOST           IPv4 (4) or IPv6 (16) address, then port (4)
 *    .     8  STORETIMESTAMP
 *    .   8|20 STOREHOST          IPv4 or IPv6 address, then port
 *    .     4  RECONSUMETIMES
 *    .     8  PREPARED TRANSACTION OFFSET
 *    .     4  BODY length, then the body
 *    .   1|2  TOPIC length (1 byte in V1, 2 in V2), then the UTF-8 topic
 *    .     2  PROPERTIES length, then "name\u0001value\u0002..." in UTF-8
 * </pre>
 *
 * <p>Optionally ({@link BrokerMessage.Builder#recordCrc}) the properties end with RocketMQ's record
 * CRC property (its {@code enabledAppendPropCRC} format, {@link #RECORD_CRC_LENGTH} bytes):
 * {@code __CRC32#} \u0001 ten decimal digits, least significant first, \u0002. The value is
 * {@link #bodyCrc}'s function over the whole record except these last bytes, so a record torn
 * anywhere (also in its topic or properties, which the body CRC does not cover) is detected.
 *
 * <p>The rest of a file too short for the next record holds an END_OF_FILE marker: TOTALSIZE = the
 * bytes left in the file, then {@link #BLANK_MAGIC_CODE}. An append needs {@link #END_FILE_MIN_BLANK_LENGTH}
 * bytes to spare after the record, so a marker always fits behind the last record of a file.
 */
public final class RecordFormat {
    /** V1 record magic (0xDAA320A7), written by Basalt and by RocketMQ. */
    public static final int MESSAGE_MAGIC_CODE = -626843481;
    /** V2 record magic (0xDAA320AB): same layout with a 2-byte topic length. Read, never written. */
    public static final int MESSAGE_MAGIC_CODE_V2 = -626843477;
    /** Magic of the END_OF_FILE marker (0xCBD43194). */
    public static final int BLANK_MAGIC_CODE = -875286124;
    /** A record must leave this many bytes free in its file, room for the END_OF_FILE marker. */
    public static final int END_FILE_MIN_BLANK_LENGTH = 4 + 4;

    public static final int TOTAL_SIZE_POSITION = 0;
    public static final int MAGIC_CODE_POSITION = 4;
    public static final int BODY_CRC_POSITION = 8;
    public static final int QUEUE_ID_POSITION = 12;
    public static final int FLAG_POSITION = 16;
    public static final int QUEUE_OFFSET_POSITION = 20;
    public static final int PHYSICAL_OFFSET_POSITION = 28;
    public static final int SYS_FLAG_POSITION = 36;
    public static final int BORN_TIMESTAMP_POSITION = 40;
    public static final int BORN_HOST_POSITION = 48;

    /** sysFlag bit: the body is compressed. */
    public static final int COMPRESSED_FLAG = 0x1;
    /** sysFlag bit: the born host is an IPv6 address (16 bytes). */
    public static final int BORNHOST_V6_FLAG = 0x1 << 4;
    /** sysFlag bit: the store host is an IPv6 address (16 bytes). */
    public static final int STOREHOSTADDRESS_V6_FLAG = 0x1 << 5;
    /** sysFlag bits 2-3: transaction type (0 not a transaction, 4 prepared, 8 commit, 12 rollback). */
    public static final int TRANSACTION_TYPE_MASK = 0xC;

    /** Longest topic in bytes: V1 stores its length in one byte, which RocketMQ's readers treat as signed. */
    public static final int MAX_TOPIC_LENGTH = Byte.MAX_VALUE;
    /** Longest properties string in bytes: its length is a signed short. */
    public static final int MAX_PROPERTIES_LENGTH = Short.MAX_VALUE;
    /** Name of the record CRC property, the last property of a record that carries it. */
    public static final String RECORD_CRC_PROPERTY = "__CRC32#";
    /** Bytes of the record CRC property: name, separator, 10 digits, separator. */
    public static final int RECORD_CRC_LENGTH = RECORD_CRC_PROPERTY.length() + 1 + 10 + 1;

    /** Extra bytes beyond maxMessageSize allowed for the non-body part of a record (RocketMQ's 64 KiB reserve). */
    public static final int NON_BODY_RESERVE = 64 * 1024;

    /** Record bytes other than body, topic, properties and the two host addresses. */
    private static final int FIXED_LENGTH = 4 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 8 + 4 + 8 + 4 + 4 + 8 + 4 + 1 + 2;

    private RecordFormat() {
    }

    /** Length of a V1 record with these parts (host address lengths follow the sysFlag bits). */
    public static int recordLength(int sysFlag, int bodyLength, int topicLength, int propertiesLength) {
        return FIXED_LENGTH + bornHostAddressLength(sysFlag) + storeHostAddressLength(sysFlag)
            + bodyLength + topicLength + propertiesLength;
    }

    public static int bornHostAddressLength(int sysFlag) {
        return (sysFlag & BORNHOST_V6_FLAG) == 0 ? 4 : 16;
    }

    public static int storeHostAddressLength(int sysFlag) {
        return (sysFlag & STOREHOSTADDRESS_V6_FLAG) == 0 ? 4 : 16;
    }

    /** Position of STORETIMESTAMP inside a record with this sysFlag. */
    public static int storeTimestampPosition(int sysFlag) {
        return BORN_HOST_POSITION + bornHostAddressLength(sysFlag) + 4;
    }

    /** Body CRC as RocketMQ computes it ({@code UtilAll.crc32}): CRC32 with the sign bit cleared. */
    public static int bodyCrc(byte[] body, int offset, int length) {
        CRC32 crc = new CRC32();
        crc.update(body, offset, length);
        return (int) (crc.getValue() & 0x7FFFFFFF);
    }

    /** Body CRC of {@code length} bytes of {@code buffer} from {@code position}; the buffer's position is unchanged. */
    public static int bodyCrc(ByteBuffer buffer, int position, int length) {
        CRC32 crc = new CRC32();
        crc.update(buffer.duplicate().limit(position + length).position(position));
        return (int) (crc.getValue() & 0x7FFFFFFF);
    }
}
