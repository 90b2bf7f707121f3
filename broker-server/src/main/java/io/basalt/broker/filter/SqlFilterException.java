package io.basalt.broker.filter;

/** A SQL92 expression that RocketMQ's selector parser or its compile-time checks refuse. */
public final class SqlFilterException extends Exception {
    private static final long serialVersionUID = 1L;

    public SqlFilterException(String message) {
        super(message);
    }

    public SqlFilterException(String message, Throwable cause) {
        super(message, cause);
    }
}
