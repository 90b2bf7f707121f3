package io.basalt.common.config;

import io.basalt.common.config.ConfigKey.UnresolvedKeyException;
import io.basalt.common.config.ConfigValues.Source;
import io.basalt.common.config.ValueType.InvalidValueException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads every key of a table from its setting or, without one, its default, and collects what is
 * wrong instead of stopping at the first problem. A computed default asks for the keys it depends
 * on, which are read first whatever their place in the table. One use per instance, on one thread.
 *
 * <pre>{@code
 * ConfigReader reader = new ConfigReader(StoreKeys.TABLE, ConfigEnvironment.system());
 * ConfigValues.Builder values = reader.read(Map.of("flushDiskType", new Setting("flushDiskType", "SYNC_FLUSH", ...)));
 * if (!reader.problems().isEmpty()) ...
 * }</pre>
 */
public final class ConfigReader {

    /** One {@code key=value} as the operator wrote it; {@code origin} names where, for messages. */
    public record Setting(String key, String value, Source source, String origin) {
    }

    private final KeyTable table;
    private final ConfigEnvironment environment;
    private final ConfigValues.Builder values = new ConfigValues.Builder();
    private final List<String> problems = new ArrayList<>();
    private final Set<String> done = new HashSet<>();
    private Map<String, Setting> settings = Map.of();

    public ConfigReader(KeyTable table, ConfigEnvironment environment) {
        this.table = table;
        this.environment = environment;
    }

    /** @param settings by key name; names the table lacks are the caller's to report */
    public ConfigValues.Builder read(Map<String, Setting> settings) {
        this.settings = settings;
        for (ConfigKey<?> key : table.keys()) {
            read(key);
        }
        return values;
    }

    /** Every bad value, in table order (a dependency's problem comes first), naming key, value and what is allowed. */
    public List<String> problems() {
        return List.copyOf(problems);
    }

    private <T> void read(ConfigKey<T> key) {
        if (!done.add(key.name())) {
            return;
        }
        Setting setting = settings.get(key.name());
        String text;
        String origin;
        Source source;
        if (setting != null) {
            text = setting.value().strip();
            origin = setting.origin();
            source = setting.source();
        } else {
            try {
                text = key.defaultRaw(resolved());
            } catch (UnresolvedKeyException e) {
                return; // the key this default is computed from was rejected and reported
            }
            origin = "default (" + key.defaultText() + ")";
            source = Source.DEFAULT;
        }
        try {
            values.put(key, key.type().parse(text, environment), source);
        } catch (InvalidValueException e) {
            String shown = key.type().isSecret() ? "<hidden>" : text;
            problems.add(origin + ": " + key.name() + "=" + shown + " " + e.getMessage() + "; allowed: " + key.type().allowed());
        }
    }

    private ConfigKey.Resolved resolved() {
        return new ConfigKey.Resolved() {
            @Override
            public <V> V get(ConfigKey<V> dependency) {
                // the table's declaration, which may carry a default the caller's constant does not
                read(table.named(dependency.name()).orElseThrow(
                    () -> new IllegalStateException("computed default needs " + dependency.name() + ", not in the table")));
                return values.get(dependency);
            }

            @Override
            public ConfigEnvironment environment() {
                return environment;
            }
        };
    }
}
