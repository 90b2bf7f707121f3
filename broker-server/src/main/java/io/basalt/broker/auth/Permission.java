package io.basalt.broker.auth;

/**
 * ACL 1.0's permission bits (RocketMQ's {@code Permission}): DENY 1, ANY 2, PUB 4, SUB 8. An account owns a value
 * per topic or group; a request needs one. {@link #ANY} is only ever needed ("PUB or SUB is enough"), never owned.
 */
public final class Permission {
    public static final byte DENY = 1;
    public static final byte ANY = 1 << 1;
    public static final byte PUB = 1 << 2;
    public static final byte SUB = 1 << 3;

    private Permission() {
    }

    /**
     * Whether {@code owned} grants {@code needed}: never when it holds DENY; for ANY, PUB or SUB is enough;
     * otherwise a shared bit.
     */
    public static boolean grants(byte owned, byte needed) {
        if ((owned & DENY) != 0) {
            return false;
        }
        if ((needed & ANY) != 0) {
            return (owned & (PUB | SUB)) != 0;
        }
        return (needed & owned) != 0;
    }

    /**
     * A permission as the files write it: {@code DENY}, {@code PUB}, {@code SUB}, {@code PUB|SUB} or {@code SUB|PUB},
     * trimmed and matched exactly as RocketMQ does. RocketMQ silently reads anything else (a lower-case {@code pub}
     * included) as DENY; Basalt refuses it, so that a file never means something else than it seems to.
     *
     * @throws IllegalArgumentException any other text, with the accepted ones
     */
    public static byte parse(String text) {
        String t = text == null ? "" : text.trim();
        return switch (t) {
            case "DENY" -> DENY;
            case "PUB" -> PUB;
            case "SUB" -> SUB;
            case "PUB|SUB", "SUB|PUB" -> (byte) (PUB | SUB);
            default -> throw new IllegalArgumentException("permission '" + text + "' is not one of DENY, PUB, SUB,"
                + " PUB|SUB, SUB|PUB");
        };
    }

    /** The file form of {@code value}. */
    public static String name(byte value) {
        if ((value & DENY) != 0) {
            return "DENY";
        }
        boolean pub = (value & PUB) != 0;
        boolean sub = (value & SUB) != 0;
        return pub && sub ? "PUB|SUB" : pub ? "PUB" : sub ? "SUB" : "DENY";
    }
}
