package io.basalt.common.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The keys one module reads, in the order documentation lists them. Each module declares its table
 * next to the code that reads it; the broker composes them with {@link #plus}. A name appears once.
 * Immutable.
 */
public final class KeyTable {

    private final Map<String, ConfigKey<?>> byName;

    private KeyTable(List<ConfigKey<?>> keys) {
        Map<String, ConfigKey<?>> map = new LinkedHashMap<>();
        for (ConfigKey<?> key : keys) {
            if (map.put(key.name(), key) != null) {
                throw new IllegalStateException("configuration key listed twice: " + key.name());
            }
        }
        this.byName = Collections.unmodifiableMap(map);
    }

    public static KeyTable of(List<ConfigKey<?>> keys) {
        return new KeyTable(keys);
    }

    /** This table followed by {@code other}; throws if a name is in both. */
    public KeyTable plus(KeyTable other) {
        List<ConfigKey<?>> keys = new ArrayList<>(byName.values());
        keys.addAll(other.keys());
        return new KeyTable(keys);
    }

    /** This table with {@code key} in place of the key of its name (another default, same meaning). */
    public KeyTable replacing(ConfigKey<?> key) {
        if (!byName.containsKey(key.name())) {
            throw new IllegalArgumentException("no key " + key.name() + " to replace");
        }
        List<ConfigKey<?>> keys = new ArrayList<>();
        for (ConfigKey<?> existing : byName.values()) {
            keys.add(existing.name().equals(key.name()) ? key : existing);
        }
        return new KeyTable(keys);
    }

    public List<ConfigKey<?>> keys() {
        return List.copyOf(byName.values());
    }

    public List<String> names() {
        return List.copyOf(byName.keySet());
    }

    public Optional<ConfigKey<?>> named(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    public boolean contains(String name) {
        return byName.containsKey(name);
    }
}
