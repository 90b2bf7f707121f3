package io.basalt.broker.config;

import java.util.Objects;
import java.util.function.Function;

/**
 * One row of the configuration table: a property name (RocketMQ's where RocketMQ has it), the
 * section it belongs to, its type (which also holds the allowed range), its default and what it
 * means. A default is the text the file would contain, read through the same type as a value from
 * the file, so a default can never be invalid without a test failing. Some defaults are computed
 * from the environment or from keys earlier in the table ({@code haListenPort = listenPort + 1}).
 *
 * @param <T> the typed value
 */
final class ConfigKey<T> {

    /** Which typed object a key feeds. */
    enum Section {
        BROKER("broker"),
        STORE("store"),
        HA("ha");

        private final String title;

        Section(String title) {
            this.title = title;
        }

        String title() {
            return title;
        }
    }

    /** What an earlier key resolved to, for computed defaults. */
    interface Resolved {
        /** @throws UnresolvedKeyException if that key had a bad value (already reported) */
        <V> V get(ConfigKey<V> key);

        ConfigEnvironment environment();
    }

    /** A computed default depends on a key whose value was rejected. */
    static final class UnresolvedKeyException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        UnresolvedKeyException(String name) {
            super(name, null, false, false);
        }
    }

    private final String name;
    private final Section section;
    private final ValueType<T> type;
    private final String defaultText;
    private final Function<Resolved, String> defaultValue;
    private final String description;

    private ConfigKey(String name, Section section, ValueType<T> type, String defaultText,
                      Function<Resolved, String> defaultValue, String description) {
        this.name = Objects.requireNonNull(name);
        this.section = Objects.requireNonNull(section);
        this.type = Objects.requireNonNull(type);
        this.defaultText = Objects.requireNonNull(defaultText);
        this.defaultValue = Objects.requireNonNull(defaultValue);
        this.description = Objects.requireNonNull(description);
    }

    /** A key whose default is a constant, written as in the file. */
    static <T> ConfigKey<T> key(String name, Section section, ValueType<T> type, String defaultValue, String description) {
        return new ConfigKey<>(name, section, type, defaultValue, resolved -> defaultValue, description);
    }

    /** A key whose default is computed; {@code defaultText} says how, for people. */
    static <T> ConfigKey<T> computed(String name, Section section, ValueType<T> type, String defaultText,
                                     Function<Resolved, String> defaultValue, String description) {
        return new ConfigKey<>(name, section, type, defaultText, defaultValue, description);
    }

    String name() {
        return name;
    }

    Section section() {
        return section;
    }

    ValueType<T> type() {
        return type;
    }

    /** The default as documentation shows it: "10911", "listenPort + 1", "${user.home}/store". */
    String defaultText() {
        return defaultText;
    }

    String defaultRaw(Resolved resolved) {
        return defaultValue.apply(resolved);
    }

    String description() {
        return description;
    }

    @Override
    public String toString() {
        return name;
    }
}
