package io.basalt.remoting.protocol;

/**
 * How a command header is serialized. The code sits in the top byte of the header-length word of
 * every frame: {@code word = code << 24 | headerLength}.
 */
public enum SerializeType {
    /** The header as a JSON object, written the way fastjson writes RocketMQ's RemotingCommand. */
    JSON(0),
    /** RocketMQ's binary header layout (see {@link RocketMQHeaderCodec}). */
    ROCKETMQ(1);

    private final byte code;

    SerializeType(int code) {
        this.code = (byte) code;
    }

    public byte code() {
        return code;
    }

    /** The type with this code, or {@code null} when the code is unknown. */
    public static SerializeType fromCode(int code) {
        return switch (code) {
            case 0 -> JSON;
            case 1 -> ROCKETMQ;
            default -> null;
        };
    }
}
