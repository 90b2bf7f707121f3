package io.basalt.broker.controller;

/** The Controller answered a request with something other than SUCCESS, or could not be reached. */
public final class ControllerException extends Exception {
    /** Not a Controller code: no Controller node answered (connect refused, timeout, no leader). */
    public static final int UNREACHABLE = -1;

    private final int code;

    public ControllerException(int code, String message) {
        super(message);
        this.code = code;
    }

    public ControllerException(int code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    /** The Controller's response code ({@link ControllerResponseCode}), or {@link #UNREACHABLE}. */
    public int code() {
        return code;
    }
}
