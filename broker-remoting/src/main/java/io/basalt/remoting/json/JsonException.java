package io.basalt.remoting.json;

/**
 * A JSON text does not parse, a tree has no JSON form, or a parsed body lacks a property it must have or
 * has one of the wrong type.
 */
public final class JsonException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public JsonException(String message) {
        super(message);
    }
}
