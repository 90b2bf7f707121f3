package io.basalt.store;

import io.basalt.store.commitlog.MessageInternals;

import io.basalt.store.commitlog.CommitLog;
import io.basalt.store.commitlog.OffsetMessageId;
import io.basalt.store.commitlog.RecordFormat;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;

/**
 * A message on its way into the CommitLog. Everything the record needs is prepared when the message
 * is built, on the caller's thread: topic and properties as UTF-8 bytes, the body CRC, the tagsCode,
 * the IPv6 bits of the sysFlag. The encoder, which runs under the put lock, then only copies.
 *
 * <p>The store fills in the physical offset, queue offset and store timestamp when it appends the
 * message; until then they are -1 / 0. Built once, the message is not changed
 * by its producer; the store writes the assigned fields from the appending thread only.
 */
public final class BrokerMessage {
    private final String topic;
    private final byte[] topicBytes;
    private final int queueId;
    private final int flag;
    private final byte[] body;
    private final int bodyCrc;
    private final String propertiesString;
    private final byte[] propertiesBytes;
    private boolean recordCrc;
    private boolean appendPropertySeparator;
    private int storedPropertiesLength;
    private final long tagsCode;
    /** Whether {@link #tagsCode} was given, not derived from TAGS (a copy keeps only a given one). */
    private final boolean tagsCodeGiven;
    private final String tags;
    private final String keys;
    private final String uniqKey;
    private final boolean waitStoreMsgOk;
    private final long bornTimestamp;
    private final byte[] bornHostAddress;
    private final int bornHostPort;
    private final byte[] storeHostAddress;
    private final int storeHostPort;
    private final int sysFlag;
    private final int reconsumeTimes;
    private final long preparedTransactionOffset;
    /** A due delayed or timer message put back into its real topic: the put transforms that delay pass it on. */
    private final boolean dueRedelivery;
    private int recordLength;

    private long physicalOffset = -1;
    private long queueOffset = -1;
    private long storeTimestamp;

    static {
        MessageInternals.install(new MessageInternals.Access() {
            @Override
            public byte[] topicBytes(BrokerMessage m) {
                return m.topicBytes;
            }

            @Override
            public byte[] propertiesBytes(BrokerMessage m) {
                return m.propertiesBytes;
            }

            @Override
            public byte[] bornHostAddress(BrokerMessage m) {
                return m.bornHostAddress;
            }

            @Override
            public byte[] storeHostAddress(BrokerMessage m) {
                return m.storeHostAddress;
            }

            @Override
            public boolean appendPropertySeparator(BrokerMessage m) {
                return m.appendPropertySeparator;
            }

            @Override
            public void withRecordCrc(BrokerMessage m) {
                m.withRecordCrc();
            }

            @Override
            public void assigned(BrokerMessage m, long physicalOffset, long queueOffset, long storeTimestamp) {
                m.physicalOffset = physicalOffset;
                m.queueOffset = queueOffset;
                m.storeTimestamp = storeTimestamp;
            }
        });
    }

    private BrokerMessage(Builder b) {
        this.topic = Objects.requireNonNull(b.topic, "topic");
        this.topicBytes = topic.getBytes(StandardCharsets.UTF_8);
        this.queueId = b.queueId;
        this.flag = b.flag;
        this.body = b.body == null ? new byte[0] : b.body;
        this.bodyCrc = RecordFormat.bodyCrc(body, 0, body.length);
        Map<String, String> map = b.properties != null ? b.properties
            : MessageProperties.parse(b.propertiesString == null ? "" : b.propertiesString);
        this.propertiesString = b.propertiesString != null ? b.propertiesString : MessageProperties.toPropertiesString(map);
        this.propertiesBytes = propertiesString.getBytes(StandardCharsets.UTF_8);
        this.recordCrc = b.recordCrc;
        this.tags = map.get(MessageProperties.TAGS);
        this.keys = map.get(MessageProperties.KEYS);
        this.uniqKey = map.get(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX);
        this.waitStoreMsgOk = !"false".equals(map.get(MessageProperties.WAIT_STORE_MSG_OK));
        this.tagsCode = b.tagsCode != null ? b.tagsCode : MessageProperties.tagsCode(tags);
        this.tagsCodeGiven = b.tagsCode != null;
        this.bornTimestamp = b.bornTimestamp;
        this.bornHostAddress = checkAddress(b.bornHostAddress, "born host");
        this.bornHostPort = b.bornHostPort;
        this.storeHostAddress = checkAddress(b.storeHostAddress, "store host");
        this.storeHostPort = b.storeHostPort;
        int flags = b.sysFlag & ~(RecordFormat.BORNHOST_V6_FLAG | RecordFormat.STOREHOSTADDRESS_V6_FLAG);
        if (bornHostAddress.length == 16) {
            flags |= RecordFormat.BORNHOST_V6_FLAG;
        }
        if (storeHostAddress.length == 16) {
            flags |= RecordFormat.STOREHOSTADDRESS_V6_FLAG;
        }
        this.sysFlag = flags;
        this.reconsumeTimes = b.reconsumeTimes;
        this.preparedTransactionOffset = b.preparedTransactionOffset;
        this.dueRedelivery = b.dueRedelivery;
        computeLengths();
    }

    /** The stored properties and record lengths, which depend on {@link #recordCrc}. */
    private void computeLengths() {
        this.appendPropertySeparator = recordCrc && propertiesBytes.length > 0
            && propertiesBytes[propertiesBytes.length - 1] != MessageProperties.PROPERTY_SEPARATOR;
        this.storedPropertiesLength = propertiesBytes.length + (appendPropertySeparator ? 1 : 0)
            + (recordCrc ? RecordFormat.RECORD_CRC_LENGTH : 0);
        this.recordLength = RecordFormat.recordLength(sysFlag, body.length, topicBytes.length, storedPropertiesLength);
    }

    /**
     * Makes the record end with the record CRC property, as the store's {@code enabledAppendPropCRC}
     * asks. Called by the CommitLog on the putting thread before it validates and appends the
     * message, while no other thread uses it; the lengths grow accordingly.
     */
    void withRecordCrc() {
        if (!recordCrc) {
            recordCrc = true;
            computeLengths();
        }
    }

    private static byte[] checkAddress(byte[] address, String what) {
        Objects.requireNonNull(address, what);
        if (address.length != 4 && address.length != 16) {
            throw new IllegalArgumentException(what + " address must have 4 or 16 bytes, not " + address.length);
        }
        return address;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder holding this message's content (not what an append assigned), to derive a changed copy:
     * another topic or queue, more properties. The tags code is kept only if it was given explicitly;
     * otherwise the copy derives it from its own TAGS.
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.topic = topic;
        b.queueId = queueId;
        b.flag = flag;
        b.body = body;
        b.propertiesString = propertiesString;
        b.tagsCode = tagsCodeGiven ? tagsCode : null;
        b.bornTimestamp = bornTimestamp;
        b.bornHostAddress = bornHostAddress;
        b.bornHostPort = bornHostPort;
        b.storeHostAddress = storeHostAddress;
        b.storeHostPort = storeHostPort;
        b.sysFlag = sysFlag;
        b.reconsumeTimes = reconsumeTimes;
        b.preparedTransactionOffset = preparedTransactionOffset;
        b.recordCrc = recordCrc;
        b.dueRedelivery = dueRedelivery;
        return b;
    }

    public String topic() {
        return topic;
    }


    public int topicLength() {
        return topicBytes.length;
    }

    public int queueId() {
        return queueId;
    }

    public int flag() {
        return flag;
    }

    /** The body as given; not copied, do not modify. */
    public byte[] body() {
        return body;
    }

    public int bodyCrc() {
        return bodyCrc;
    }

    public String propertiesString() {
        return propertiesString;
    }


    /** True when the record ends with the record CRC property (see {@link RecordFormat}). */
    public boolean recordCrc() {
        return recordCrc;
    }

    /**
     * Length of the properties as stored: the given ones and, with {@link #recordCrc()}, a final
     * separator if they lacked it and the record CRC property ({@link RecordFormat#RECORD_CRC_LENGTH} bytes).
     */
    public int propertiesLength() {
        return storedPropertiesLength;
    }

    public long tagsCode() {
        return tagsCode;
    }

    /** The TAGS property, or null. */
    public String tags() {
        return tags;
    }

    /** The KEYS property (keys separated by {@link MessageProperties#KEY_SEPARATOR}), or null. */
    public String keys() {
        return keys;
    }

    /** The UNIQ_KEY property (the client's message id), or null. */
    public String uniqKey() {
        return uniqKey;
    }

    /** False only when the producer set WAIT=false: then a sync flush is started but not awaited. */
    public boolean waitStoreMsgOk() {
        return waitStoreMsgOk;
    }

    public long bornTimestamp() {
        return bornTimestamp;
    }


    public int bornHostPort() {
        return bornHostPort;
    }


    public int storeHostPort() {
        return storeHostPort;
    }

    /** The sysFlag as written: the caller's flags with the IPv6 bits set from the host addresses. */
    public int sysFlag() {
        return sysFlag;
    }

    public int reconsumeTimes() {
        return reconsumeTimes;
    }

    /**
     * True for a delayed or timer message whose time has come, put back into its real topic by the
     * schedule or timer service: a put transform that delays messages must pass it on unchanged (its
     * stored properties still carry DELAY / TIMER_* as RocketMQ leaves them). Not stored in the record.
     */
    public boolean dueRedelivery() {
        return dueRedelivery;
    }

    public long preparedTransactionOffset() {
        return preparedTransactionOffset;
    }

    /** Total bytes of this message's record. */
    public int recordLength() {
        return recordLength;
    }

    /** Assigned global CommitLog offset, -1 before the append. */
    public long physicalOffset() {
        return physicalOffset;
    }

    /** Assigned logical offset in (topic, queueId), -1 before the append. */
    public long queueOffset() {
        return queueOffset;
    }

    public long storeTimestamp() {
        return storeTimestamp;
    }

    /** RocketMQ's offset message id of the appended record. */
    public String offsetMsgId() {
        return OffsetMessageId.encode(storeHostAddress, storeHostPort, physicalOffset);
    }

    @Override
    public String toString() {
        return "BrokerMessage[topic=" + topic + ", queueId=" + queueId + ", bodyLength=" + body.length
            + ", queueOffset=" + queueOffset + ", physicalOffset=" + physicalOffset + "]";
    }

    /** Collects a message's fields; {@link #build()} encodes topic and properties once. */
    public static final class Builder {
        private static final byte[] ANY_IPV4 = new byte[4];

        private String topic;
        private int queueId;
        private int flag;
        private byte[] body;
        private Map<String, String> properties;
        private String propertiesString;
        private Long tagsCode;
        private long bornTimestamp;
        private byte[] bornHostAddress = ANY_IPV4;
        private int bornHostPort;
        private byte[] storeHostAddress = ANY_IPV4;
        private int storeHostPort;
        private int sysFlag;
        private int reconsumeTimes;
        private long preparedTransactionOffset;
        private boolean recordCrc;
        private boolean dueRedelivery;

        private Builder() {
        }

        /** Marks a due delayed or timer message put back into its real topic; see {@link BrokerMessage#dueRedelivery()}. */
        public Builder dueRedelivery(boolean dueRedelivery) {
            this.dueRedelivery = dueRedelivery;
            return this;
        }

        /**
         * Ends the record with RocketMQ's record CRC property ({@code enabledAppendPropCRC}), so that a
         * record torn anywhere is detected, not only in its body. Off by default (RocketMQ's default
         * format). A store that writes it must tell recovery so ({@code CommitLogRecovery}).
         */
        public Builder recordCrc(boolean recordCrc) {
            this.recordCrc = recordCrc;
            return this;
        }

        public Builder topic(String topic) {
            this.topic = topic;
            return this;
        }

        public Builder queueId(int queueId) {
            this.queueId = queueId;
            return this;
        }

        public Builder flag(int flag) {
            this.flag = flag;
            return this;
        }

        public Builder body(byte[] body) {
            this.body = body;
            return this;
        }

        /** Properties as a map; encoded in its iteration order. Replaces {@link #propertiesString}. */
        public Builder properties(Map<String, String> properties) {
            this.properties = properties;
            this.propertiesString = null;
            return this;
        }

        /** Properties already in wire form (as a producer sends them); kept byte for byte. */
        public Builder propertiesString(String propertiesString) {
            this.propertiesString = propertiesString;
            this.properties = null;
            return this;
        }

        /** Overrides the tagsCode, which is otherwise the hash of the TAGS property. */
        public Builder tagsCode(long tagsCode) {
            this.tagsCode = tagsCode;
            return this;
        }

        public Builder bornTimestamp(long bornTimestamp) {
            this.bornTimestamp = bornTimestamp;
            return this;
        }

        public Builder bornHost(InetSocketAddress bornHost) {
            return bornHost(bornHost.getAddress().getAddress(), bornHost.getPort());
        }

        /** Raw address (4 bytes IPv4 or 16 bytes IPv6) and port. */
        public Builder bornHost(byte[] address, int port) {
            this.bornHostAddress = address;
            this.bornHostPort = port;
            return this;
        }

        public Builder storeHost(InetSocketAddress storeHost) {
            return storeHost(storeHost.getAddress().getAddress(), storeHost.getPort());
        }

        /** Raw address (4 bytes IPv4 or 16 bytes IPv6) and port. */
        public Builder storeHost(byte[] address, int port) {
            this.storeHostAddress = address;
            this.storeHostPort = port;
            return this;
        }

        /** The producer's sysFlag; the IPv6 host bits are recomputed from the addresses. */
        public Builder sysFlag(int sysFlag) {
            this.sysFlag = sysFlag;
            return this;
        }

        public Builder reconsumeTimes(int reconsumeTimes) {
            this.reconsumeTimes = reconsumeTimes;
            return this;
        }

        public Builder preparedTransactionOffset(long preparedTransactionOffset) {
            this.preparedTransactionOffset = preparedTransactionOffset;
            return this;
        }

        public BrokerMessage build() {
            return new BrokerMessage(this);
        }
    }
}
