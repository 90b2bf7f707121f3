package io.basalt.remoting.protocol;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One request or response of the RocketMQ remoting protocol.
 *
 * <p>Frame layout (big-endian), as RocketMQ's NettyEncoder/NettyDecoder write and read it:
 * <pre>
 *   int length                 = 4 + headerLength + bodyLength
 *   int serializeTypeAndLength = serializeType.code() &lt;&lt; 24 | headerLength (24 bits)
 *   byte[headerLength] header  JSON ({@link JsonHeaderCodec}) or binary ({@link RocketMQHeaderCodec})
 *   byte[bodyLength] body
 * </pre>
 * The {@code flag} word: bit 0 set = response, bit 1 set = one-way request.
 *
 * <p>A command is built and filled by one thread, then handed over (to a channel, a processor); it is
 * not safe for concurrent mutation. A typed {@link CommandHeader} attached with {@link #setHeader}
 * is written into the header at encode time; received commands carry their fields in
 * {@link #extFields()} only, to be read with the header type's {@code decode}.
 */
public final class RemotingCommand {
    static final int RESPONSE_FLAG = 1;
    static final int ONEWAY_FLAG = 1 << 1;
    private static final AtomicInteger NEXT_OPAQUE = new AtomicInteger();

    private int code;
    private LanguageCode language;
    private int version;
    private int opaque;
    private int flag;
    private String remark;
    private HashMap<String, String> extFields;
    private CommandHeader header;
    private byte[] body;
    private ByteBuffer[] bodySlices;
    private Runnable bodyRelease;
    private SerializeType serializeType = SerializeType.JSON;

    RemotingCommand(int code, LanguageCode language, int version, int opaque, int flag, String remark,
        HashMap<String, String> extFields) {
        this.code = code;
        this.language = language;
        this.version = version;
        this.opaque = opaque;
        this.flag = flag;
        this.remark = remark;
        this.extFields = extFields;
    }

    /** A new request with a fresh opaque, language JAVA and the current version. */
    public static RemotingCommand request(int code, CommandHeader header) {
        RemotingCommand cmd = new RemotingCommand(code, LanguageCode.JAVA, RemotingVersion.CURRENT,
            NEXT_OPAQUE.getAndIncrement(), 0, null, null);
        cmd.header = header;
        return cmd;
    }

    public static RemotingCommand request(int code) {
        return request(code, null);
    }

    /** A response; the server sets its opaque to the request's when it writes it. */
    public static RemotingCommand response(int code, String remark, CommandHeader header) {
        RemotingCommand cmd = new RemotingCommand(code, LanguageCode.JAVA, RemotingVersion.CURRENT,
            NEXT_OPAQUE.getAndIncrement(), RESPONSE_FLAG, remark, null);
        cmd.header = header;
        return cmd;
    }

    public static RemotingCommand response(int code, String remark) {
        return response(code, remark, null);
    }

    /** A fresh opaque for a request built by hand. */
    public static int nextOpaque() {
        return NEXT_OPAQUE.getAndIncrement();
    }

    public int code() {
        return code;
    }

    public void setCode(int code) {
        this.code = code;
    }

    public LanguageCode language() {
        return language;
    }

    public void setLanguage(LanguageCode language) {
        this.language = language;
    }

    public int version() {
        return version;
    }

    public void setVersion(int version) {
        this.version = version;
    }

    public int opaque() {
        return opaque;
    }

    public void setOpaque(int opaque) {
        this.opaque = opaque;
    }

    public int flag() {
        return flag;
    }

    public void setFlag(int flag) {
        this.flag = flag;
    }

    public boolean isResponse() {
        return (flag & RESPONSE_FLAG) != 0;
    }

    public void markResponse() {
        flag |= RESPONSE_FLAG;
    }

    public boolean isOneway() {
        return (flag & ONEWAY_FLAG) != 0;
    }

    public void markOneway() {
        flag |= ONEWAY_FLAG;
    }

    public String remark() {
        return remark;
    }

    public void setRemark(String remark) {
        this.remark = remark;
    }

    /** The header fields as received, or as set by hand; may be null. */
    public Map<String, String> extFields() {
        return extFields;
    }

    public void setExtFields(HashMap<String, String> extFields) {
        this.extFields = extFields;
    }

    public void putExtField(String name, String value) {
        if (extFields == null) {
            extFields = new HashMap<>();
        }
        extFields.put(name, value);
    }

    public CommandHeader header() {
        return header;
    }

    public void setHeader(CommandHeader header) {
        this.header = header;
    }

    public byte[] body() {
        return body;
    }

    public void setBody(byte[] body) {
        this.body = body;
    }

    public int bodyLength() {
        if (bodySlices != null) {
            int length = 0;
            for (ByteBuffer slice : bodySlices) {
                length += slice.remaining();
            }
            return length;
        }
        return body == null ? 0 : body.length;
    }

    /**
     * Makes the body the concatenation of {@code slices} (e.g. read-only views of mapped CommitLog files),
     * written to the connection as they are, without a copy onto the heap. {@code release} runs exactly once,
     * after the write finished or failed, or when the command is not written at all; the slices must stay
     * valid until then. Replaces a byte-array body.
     */
    public void setBodySlices(ByteBuffer[] slices, Runnable release) {
        this.body = null;
        this.bodySlices = slices;
        this.bodyRelease = release;
    }

    /** The body given as slices, or null. */
    public ByteBuffer[] bodySlices() {
        return bodySlices;
    }

    /** Runs the slices' release (once); the server calls it when the response is done with. */
    public void releaseBody() {
        Runnable release = bodyRelease;
        bodyRelease = null;
        if (release != null) {
            release.run();
        }
    }

    public SerializeType serializeType() {
        return serializeType;
    }

    public void setSerializeType(SerializeType serializeType) {
        this.serializeType = serializeType;
    }

    /**
     * Encodes everything but the body: the length word, the serialize-type/header-length word and the
     * header. The body follows these bytes on the wire unchanged.
     */
    public byte[] encodeFramePrefix() {
        ByteWriter out = new ByteWriter(256);
        out.writeInt(0);
        out.writeInt(0);
        if (serializeType == SerializeType.ROCKETMQ) {
            if (header != null && !header.writtenAheadOfExtFields()) {
                foldHeaderIntoExtFields();
            }
            RocketMQHeaderCodec.encode(this, out);
        } else {
            foldHeaderIntoExtFields();
            JsonHeaderCodec.encode(this, out);
        }
        int headerLength = out.position() - 8;
        if (headerLength > 0xFFFFFF) {
            throw new IllegalStateException("header of " + headerLength + " bytes exceeds the 24-bit length field");
        }
        out.setInt(0, 4 + headerLength + bodyLength());
        out.setInt(4, serializeType.code() << 24 | headerLength);
        return out.toByteArray();
    }

    /** Encodes the whole frame, body included, into one array. */
    public byte[] encode() {
        byte[] prefix = encodeFramePrefix();
        if (bodySlices != null) {
            ByteBuffer frame = ByteBuffer.allocate(prefix.length + bodyLength()).put(prefix);
            for (ByteBuffer slice : bodySlices) {
                frame.put(slice.duplicate());
            }
            return frame.array();
        }
        if (body == null) {
            return prefix;
        }
        byte[] frame = new byte[prefix.length + body.length];
        System.arraycopy(prefix, 0, frame, 0, prefix.length);
        System.arraycopy(body, 0, frame, prefix.length, body.length);
        return frame;
    }

    /**
     * Decodes one frame without its leading length word (what a length-field frame decoder that strips
     * the length hands over): serialize-type/header-length word, header, body. Consumes the buffer.
     */
    public static RemotingCommand decode(ByteBuffer frame) throws RemotingCommandException {
        int frameLength = frame.remaining();
        if (frameLength < 4) {
            throw new RemotingCommandException("frame of " + frameLength + " bytes has no header-length word");
        }
        int word = frame.getInt();
        SerializeType type = SerializeType.fromCode(word >>> 24);
        if (type == null) {
            throw new RemotingCommandException("unknown serialize type " + (word >>> 24));
        }
        int headerLength = word & 0xFFFFFF;
        if (headerLength > frameLength - 4) {
            throw new RemotingCommandException("header length " + headerLength + " exceeds frame length " + frameLength);
        }
        ByteBuffer header = frame.slice();
        header.limit(headerLength);
        RemotingCommand cmd;
        if (type == SerializeType.ROCKETMQ) {
            cmd = RocketMQHeaderCodec.decode(header);
        } else if (header.hasArray()) {
            cmd = JsonHeaderCodec.decode(header.array(), header.arrayOffset() + header.position(), headerLength);
        } else {
            byte[] bytes = new byte[headerLength];
            header.get(bytes);
            cmd = JsonHeaderCodec.decode(bytes, 0, headerLength);
        }
        frame.position(frame.position() + headerLength);
        int bodyLength = frame.remaining();
        if (bodyLength > 0) {
            byte[] body = new byte[bodyLength];
            frame.get(body);
            cmd.body = body;
        }
        return cmd;
    }

    /** Decodes a whole frame, leading length word included; the length word must match the array. */
    public static RemotingCommand decodeFrame(byte[] frame) throws RemotingCommandException {
        ByteBuffer buf = ByteBuffer.wrap(frame);
        if (frame.length < 4 || buf.getInt() != frame.length - 4) {
            throw new RemotingCommandException("length word does not match a frame of " + frame.length + " bytes");
        }
        return decode(buf);
    }

    private void foldHeaderIntoExtFields() {
        if (header != null) {
            if (extFields == null) {
                extFields = new HashMap<>();
            }
            header.encode(extFields::put);
        }
    }

    @Override
    public String toString() {
        return "RemotingCommand[code=" + code + ", language=" + language + ", version=" + version
            + ", opaque=" + opaque + ", flag=" + Integer.toBinaryString(flag) + ", remark=" + remark
            + ", extFields=" + extFields + ", serializeType=" + serializeType + ", body=" + bodyLength() + "B]";
    }
}
