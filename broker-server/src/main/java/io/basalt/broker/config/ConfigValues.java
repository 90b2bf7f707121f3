package io.basalt.broker.config;

import java.util.HashMap;
import java.util.Map;

/** The resolved value of every key, with where it came from. Immutable; built by {@link Builder}. */
final class ConfigValues {

    /** Where a value came from, for the effective-configuration print. */
    enum Source {
        DEFAULT("default"),
        FILE("file"),
        COMMAND_LINE("command line"),
        PROPERTIES("properties");

        private final String label;

        Source(String label) {
            this.label = label;
        }

        String label() {
            return label;
        }
    }

    private final Map<ConfigKey<?>, Object> values;
    private final Map<ConfigKey<?>, Source> sources;

    private ConfigValues(Builder builder) {
        this.values = Map.copyOf(builder.values);
        this.sources = Map.copyOf(builder.sources);
    }

    @SuppressWarnings("unchecked")
    <T> T get(ConfigKey<T> key) {
        Object value = values.get(key);
        if (value == null) {
            throw new IllegalStateException("configuration key " + key.name() + " was not resolved");
        }
        return (T) value;
    }

    Source source(ConfigKey<?> key) {
        return sources.get(key);
    }

    /** The value as text, in the form the file takes it. */
    <T> String text(ConfigKey<T> key) {
        return key.type().format(get(key));
    }

    /** Collects values while the configuration is resolved; used by one thread. */
    static final class Builder {

        private final Map<ConfigKey<?>, Object> values = new HashMap<>();
        private final Map<ConfigKey<?>, Source> sources = new HashMap<>();

        <T> void put(ConfigKey<T> key, T value, Source source) {
            values.put(key, value);
            sources.put(key, source);
        }

        /** Replaces a value a cross-check corrected; the source stays what the operator wrote. */
        <T> void correct(ConfigKey<T> key, T value) {
            values.put(key, value);
        }

        boolean has(ConfigKey<?> key) {
            return values.containsKey(key);
        }

        /** @throws ConfigKey.UnresolvedKeyException if the key had a bad value (already reported) */
        @SuppressWarnings("unchecked")
        <T> T get(ConfigKey<T> key) {
            Object value = values.get(key);
            if (value == null) {
                throw new ConfigKey.UnresolvedKeyException(key.name());
            }
            return (T) value;
        }

        ConfigValues build() {
            return new ConfigValues(this);
        }
    }
}
