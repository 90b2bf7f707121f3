package io.basalt.common.config;

import java.util.HashMap;
import java.util.Map;

/**
 * The resolved value of every key of a table, with where it came from. The only input the config
 * objects ({@code StoreConfig.from}, {@code HAConfig.from}, the broker's) are built from.
 * Immutable; built by {@link Builder}, usually through {@link ConfigReader}.
 */
public final class ConfigValues {

    /** Where a value came from, for the effective-configuration print. */
    public enum Source {
        DEFAULT("default"),
        FILE("file"),
        COMMAND_LINE("command line"),
        PROPERTIES("properties");

        private final String label;

        Source(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    private final Map<String, Object> values;
    private final Map<String, Source> sources;

    private ConfigValues(Builder builder) {
        this.values = Map.copyOf(builder.values);
        this.sources = Map.copyOf(builder.sources);
    }

    /** @throws IllegalStateException if the key is not in the table these values were read for */
    @SuppressWarnings("unchecked")
    public <T> T get(ConfigKey<T> key) {
        Object value = values.get(key.name());
        if (value == null) {
            throw new IllegalStateException("configuration key " + key.name() + " was not resolved");
        }
        return (T) value;
    }

    public boolean has(ConfigKey<?> key) {
        return values.containsKey(key.name());
    }

    public Source source(ConfigKey<?> key) {
        return sources.get(key.name());
    }

    /** The value as text, in the form the file takes it. */
    public <T> String text(ConfigKey<T> key) {
        return key.type().format(get(key));
    }

    /**
     * These values with {@code changed} (key name to typed value, each a key these values hold) replacing theirs,
     * recorded as coming from {@code source}; for a change made while the broker runs.
     */
    public ConfigValues with(Map<String, Object> changed, Source source) {
        Builder builder = new Builder();
        builder.values.putAll(values);
        builder.sources.putAll(sources);
        changed.forEach((name, value) -> {
            if (!values.containsKey(name)) {
                throw new IllegalArgumentException("configuration key " + name + " was not resolved");
            }
            builder.values.put(name, value);
            builder.sources.put(name, source);
        });
        return builder.build();
    }

    /** Collects values while a configuration is resolved; used by one thread. */
    public static final class Builder {

        private final Map<String, Object> values = new HashMap<>();
        private final Map<String, Source> sources = new HashMap<>();

        public <T> void put(ConfigKey<T> key, T value, Source source) {
            values.put(key.name(), value);
            sources.put(key.name(), source);
        }

        /** Replaces a value a cross-check corrected; the source stays what the operator wrote. */
        public <T> void correct(ConfigKey<T> key, T value) {
            values.put(key.name(), value);
        }

        public boolean has(ConfigKey<?> key) {
            return values.containsKey(key.name());
        }

        /** @throws ConfigKey.UnresolvedKeyException if the key had a bad value (already reported) */
        @SuppressWarnings("unchecked")
        public <T> T get(ConfigKey<T> key) {
            Object value = values.get(key.name());
            if (value == null) {
                throw new ConfigKey.UnresolvedKeyException(key.name());
            }
            return (T) value;
        }

        public ConfigValues build() {
            return new ConfigValues(this);
        }
    }
}
