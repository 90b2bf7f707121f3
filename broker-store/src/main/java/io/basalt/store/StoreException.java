package io.basalt.store;

/** A store operation failed for a reason the caller cannot fix by retrying at once (I/O, corruption). */
public final class StoreException extends RuntimeException {
    public StoreException(String message) {
        super(message);
    }

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
