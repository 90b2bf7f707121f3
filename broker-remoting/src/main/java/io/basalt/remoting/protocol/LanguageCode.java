package io.basalt.remoting.protocol;

/**
 * The client language carried in every command header (one byte in the binary serialization, the
 * constant's name in JSON). Codes as in RocketMQ 5.2.0.
 */
public enum LanguageCode {
    JAVA(0), CPP(1), DOTNET(2), PYTHON(3), DELPHI(4), ERLANG(5), RUBY(6), OTHER(7), HTTP(8), GO(9), PHP(10),
    OMS(11), RUST(12);

    private static final LanguageCode[] BY_CODE = new LanguageCode[13];

    static {
        for (LanguageCode language : values()) {
            BY_CODE[language.code] = language;
        }
    }

    private final byte code;

    LanguageCode(int code) {
        this.code = (byte) code;
    }

    public byte code() {
        return code;
    }

    /** The language with this code; a code newer than this list reads as {@link #OTHER}. */
    public static LanguageCode fromCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : OTHER;
    }

    /** The language with this name; an unknown name reads as {@link #OTHER}. */
    public static LanguageCode fromName(String name) {
        for (LanguageCode language : values()) {
            if (language.name().equals(name)) {
                return language;
            }
        }
        return OTHER;
    }
}
