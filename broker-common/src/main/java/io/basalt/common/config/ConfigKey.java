package io.basalt.common.config;

import java.util.Objects;
import java.util.function.Function;

/**
 * One row of a configuration table: a property name (RocketMQ's where RocketMQ has it), the
 * section it belongs to ("broker", "store", "ha"), its type (which also holds the allowed range),
 * its default and one line saying what it means, with its unit. A default is the text the file
 * would contain, read through the same type as a value from the file, so a default can never be
 * invalid without a test failing. Some defaults are computed from the environment or from other
 * keys ({@code storePathCommitLog = <storePathRootDir>/commitlog}).
 *
 * <p>Keys are identified by name: two keys with one name are the same setting, which is how a
 * module that composes tables can give a key a default only it can compute ({@link #withDefault}).
 * Immutable.
 *
 * @param <T> the typed value
 */
public final class ConfigKey<T> {

    /** What other keys resolved to, for computed defaults. */
    public interface Resolved {
        /** @throws UnresolvedKeyException if that key had a bad value (already reported) */
        <V> V get(ConfigKey<V> key);

        ConfigEnvironment environment();
    }

    /** A computed default depends on a key whose value was rejected. */
    public static final class UnresolvedKeyException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        public UnresolvedKeyException(String name) {
            super(name, null, false, false);
        }
    }

    private final String name;
    private final String section;
    private final ValueType<T> type;
    private final String defaultText;
    private final Function<Resolved, String> defaultValue;
    private final String description;

    private ConfigKey(String name, String section, ValueType<T> type, String defaultText,
                      Function<Resolved, String> defaultValue, String description) {
        this.name = Objects.requireNonNull(name);
        this.section = Objects.requireNonNull(section);
        this.type = Objects.requireNonNull(type);
        this.defaultText = Objects.requireNonNull(defaultText);
        this.defaultValue = Objects.requireNonNull(defaultValue);
        this.description = Objects.requireNonNull(description);
    }

    /** A key whose default is a constant, written as in the file. */
    public static <T> ConfigKey<T> key(String name, String section, ValueType<T> type, String defaultValue,
                                       String description) {
        return new ConfigKey<>(name, section, type, defaultValue, resolved -> defaultValue, description);
    }

    /** A key whose default is computed; {@code defaultText} says how, for people. */
    public static <T> ConfigKey<T> computed(String name, String section, ValueType<T> type, String defaultText,
                                            Function<Resolved, String> defaultValue, String description) {
        return new ConfigKey<>(name, section, type, defaultText, defaultValue, description);
    }

    /** The same key (name, type, meaning) with another, computed default. */
    public ConfigKey<T> withDefault(String text, Function<Resolved, String> value) {
        return new ConfigKey<>(name, section, type, text, value, description);
    }

    public String name() {
        return name;
    }

    public String section() {
        return section;
    }

    public ValueType<T> type() {
        return type;
    }

    /** The default as documentation shows it: "10911", "listenPort + 1", "${user.home}/store". */
    public String defaultText() {
        return defaultText;
    }

    /** The default's text for this configuration, to be read through {@link #type()}. */
    public String defaultRaw(Resolved resolved) {
        return defaultValue.apply(resolved);
    }

    public String description() {
        return description;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ConfigKey<?> key && key.name.equals(name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    @Override
    public String toString() {
        return name;
    }
}
