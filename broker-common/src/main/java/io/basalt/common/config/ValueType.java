package io.basalt.common.config;

/**
 * How one configuration value is read from its text and printed back. Implementations live in
 * {@link ValueTypes}.
 *
 * @param <T> the typed value
 */
public interface ValueType<T> {

    /**
     * Reads {@code raw} (already trimmed).
     *
     * @throws InvalidValueException saying what is wrong with the text, not what is allowed
     */
    T parse(String raw, ConfigEnvironment environment) throws InvalidValueException;

    /** What this type accepts, for error messages and the reference: "an integer from 1 to 65535". */
    String allowed();

    /** The value as the effective-configuration print shows it. */
    default String format(T value) {
        return String.valueOf(value);
    }

    /**
     * Whether values of this type are secrets (passwords, keys): never printed, not even in an error about them, and
     * never returned by an admin answer.
     */
    default boolean isSecret() {
        return false;
    }

    /** A value's text cannot be read as its key's type. */
    final class InvalidValueException extends Exception {

        private static final long serialVersionUID = 1L;

        public InvalidValueException(String reason) {
            super(reason, null, false, false);
        }
    }
}
