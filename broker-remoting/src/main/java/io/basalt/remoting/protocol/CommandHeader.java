package io.basalt.remoting.protocol;

/**
 * A typed request or response header: a fixed set of named fields carried in the command's
 * {@code extFields}. Each implementation writes its fields by hand (no reflection) and offers a static
 * {@code decode(Map<String, String>)} for the other direction.
 */
public interface CommandHeader {

    /** Receives one header field; the value is the field's decimal or literal text, never null. */
    @FunctionalInterface
    interface FieldWriter {
        void put(String name, String value);
    }

    /** Writes every non-null field, always in the same order. */
    void encode(FieldWriter out);

    /**
     * Whether the binary serialization writes these fields ahead of the command's other
     * {@code extFields} (RocketMQ's fast-codec headers) rather than merged into them (its reflective
     * headers). Only the byte order on the wire depends on it.
     */
    default boolean writtenAheadOfExtFields() {
        return true;
    }
}
