package io.basalt.broker.protocol;

/** A body is not well-formed JSON, or lacks a property it must have, or has one of the wrong type. */
public final class JsonException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    JsonException(String message) {
        super(message);
    }
}
