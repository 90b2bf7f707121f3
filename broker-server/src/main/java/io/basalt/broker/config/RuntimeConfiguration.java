package io.basalt.broker.config;

import io.basalt.common.config.ConfigEnvironment;
import io.basalt.common.config.ConfigKey;
import io.basalt.common.config.ConfigValues.Source;
import io.basalt.common.config.KeySuggester;
import io.basalt.common.config.ValueType.InvalidValueException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The broker's configuration while it runs: what GET_BROKER_CONFIG answers and what UPDATE_BROKER_CONFIG changes.
 * A key can be changed at runtime only if the broker registered an applier for it ({@link #applyLive}), i.e. a
 * code path that reads the new value at once; any other key needs a restart and an update naming one is refused
 * whole. An accepted update is all or nothing: every key is checked first (blacklist, name, value, live), then the
 * changed keys are written into the configuration file (only those lines, atomically), then the new values
 * replace the old and the appliers run. Thread-safe: updates are serialized, reads see one whole configuration.
 */
public final class RuntimeConfiguration {

    /** Keys no update may name (RocketMQ's fixed blacklist); the configBlackList setting adds more. */
    static final Set<String> FIXED_BLACKLIST = Set.of("brokerConfigPath", "rocketmqHome", "configBlackList");


    /**
     * What an accepted update did.
     *
     * @param applied        the keys whose value changed, applied at once and written to {@code file}
     * @param unchanged      keys named with the value they already had
     * @param commandLineSet applied keys the command line also sets: at the next start the command line wins
     */
    public record Update(List<String> applied, List<String> unchanged, Path file, List<String> commandLineSet) {

        /** One line for the response's remark. */
        public String summary() {
            StringBuilder text = new StringBuilder(applied.isEmpty() ? "nothing changed"
                : "applied at once and written to " + file + ": " + String.join(", ", applied));
            if (!unchanged.isEmpty()) {
                text.append("; already set: ").append(String.join(", ", unchanged));
            }
            if (!commandLineSet.isEmpty()) {
                text.append("; note: the command line also sets ").append(String.join(", ", commandLineSet))
                    .append(", which wins at the next start");
            }
            return text.toString();
        }
    }

    /** The configuration's version stamp: counter +1 per accepted update that changed something. */
    public record Version(long counter, long timestamp) {
    }

    private final Path file;
    private final LongSupplier clock;
    private final Map<String, Consumer<BrokerConfiguration>> appliers = new LinkedHashMap<>();
    private volatile BrokerConfiguration current;
    private volatile Version version;

    /**
     * @param file where updates are written: the file the broker was started with ({@code -c}), else the file
     *             RocketMQ writes without one ({@code <storePathRootDir>/config/broker.properties})
     */
    public RuntimeConfiguration(BrokerConfiguration initial, Path file, LongSupplier clock) {
        this.current = initial;
        this.file = file;
        this.clock = clock;
        this.version = new Version(0, clock.getAsLong());
    }

    /**
     * Declares {@code key} changeable at runtime: after an update changed it, {@code applier} is called with the new
     * configuration and must make the broker use the new value from then on.
     */
    public synchronized void applyLive(String key, Consumer<BrokerConfiguration> applier) {
        if (!ConfigKeys.TABLE.contains(key)) {
            throw new IllegalArgumentException(key + " is not a configuration key");
        }
        appliers.merge(key, applier, Consumer::andThen);
    }

    /** The keys an update may change, sorted. */
    public synchronized Set<String> liveKeys() {
        return new TreeMap<>(appliers).keySet();
    }

    public BrokerConfiguration current() {
        return current;
    }

    public Version version() {
        return version;
    }

    /** The file updates are written to. */
    public Path file() {
        return file;
    }

    /**
     * Every key with its effective value as file text, sorted by name. Secrets are left out, not masked: a tool
     * that reads the configuration and sends it back (a dashboard's edit form) must not be able to set a password
     * to a placeholder, and an empty or masked line tells a reader nothing it may use.
     */
    public SortedMap<String, String> effectiveProperties() {
        BrokerConfiguration configuration = current;
        SortedMap<String, String> properties = new TreeMap<>();
        for (ConfigKey<?> key : ConfigKeys.TABLE.keys()) {
            if (!key.type().isSecret()) {
                properties.put(key.name(), configuration.values().text(key));
            }
        }
        return properties;
    }

    /**
     * Applies {@code requested} (key → value text) or refuses it whole.
     *
     * @throws ConfigUpdateRefusedException naming every problem: a blacklisted key, an unknown key (with the closest
     *                                valid name), a RocketMQ key Basalt does not implement, an invalid value, keys
     *                                that need a restart
     * @throws IOException            when the file cannot be written (nothing was applied)
     */
    public synchronized Update update(Map<String, String> requested) throws ConfigUpdateRefusedException, IOException {
        BrokerConfiguration configuration = current;
        Set<String> blacklist = blacklist(configuration);
        for (String key : requested.keySet()) {
            if (blacklist.contains(key)) {
                throw new ConfigUpdateRefusedException("Can not update config in black list.", true);
            }
        }
        List<String> problems = new ArrayList<>();
        List<String> needRestart = new ArrayList<>();
        Map<String, Object> changed = new LinkedHashMap<>();
        Map<String, String> changedText = new LinkedHashMap<>();
        List<String> unchanged = new ArrayList<>();
        for (Map.Entry<String, String> entry : requested.entrySet()) {
            String name = entry.getKey();
            String raw = entry.getValue().strip();
            ConfigKey<?> key = ConfigKeys.TABLE.named(name).orElse(null);
            if (key == null) {
                problems.add(unknownKey(name));
                continue;
            }
            Object value;
            try {
                value = key.type().parse(raw, ConfigEnvironment.system());
            } catch (InvalidValueException e) {
                problems.add(key.type().isSecret() ? name + ": " + e.getMessage()
                    : name + "=" + raw + ": " + e.getMessage() + " (allowed: " + key.type().allowed() + ")");
                continue;
            }
            if (value.equals(configuration.values().get(key))) {
                unchanged.add(name);
            } else if (!appliers.containsKey(name)) {
                needRestart.add(name);
            } else {
                changed.put(name, value);
                changedText.put(name, text(key, value));
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigUpdateRefusedException("nothing changed: " + String.join("; ", problems), false);
        }
        if (!needRestart.isEmpty()) {
            throw new ConfigUpdateRefusedException("nothing changed: " + String.join(", ", needRestart)
                + (needRestart.size() == 1 ? " needs" : " need") + " a restart (set in " + file
                + " and restart the broker); keys that apply at once: " + String.join(", ", liveKeys()), false);
        }
        List<String> commandLineSet = new ArrayList<>();
        if (!changed.isEmpty()) {
            ConfigFileEditor.write(file, changedText);
            for (String name : changed.keySet()) {
                if (configuration.values().source(ConfigKeys.TABLE.named(name).orElseThrow()) == Source.COMMAND_LINE) {
                    commandLineSet.add(name);
                }
            }
            BrokerConfiguration updated = configuration.with(changed);
            current = updated;
            version = new Version(version.counter() + 1, clock.getAsLong());
            changed.keySet().forEach(name -> appliers.get(name).accept(updated));
        }
        return new Update(List.copyOf(changed.keySet()), unchanged, file, commandLineSet);
    }

    @SuppressWarnings("unchecked")
    private static <T> String text(ConfigKey<T> key, Object value) {
        return key.type().format((T) value);
    }

    /** RocketMQ's: the fixed keys and those of configBlackList (';'-separated; its default adds nothing new). */
    static Set<String> blacklist(BrokerConfiguration configuration) {
        Set<String> blacklist = new LinkedHashSet<>(FIXED_BLACKLIST);
        configuration.rocketMqOnlyValue("configBlackList").ifPresent(value -> Arrays.stream(value.split(";"))
            .map(String::strip).filter(name -> !name.isEmpty()).forEach(blacklist::add));
        return blacklist;
    }

    private static String unknownKey(String name) {
        if (RocketMqKeyNames.contains(name)) {
            return name + " is a RocketMQ 5.2.0 broker setting that Basalt does not implement; it cannot be changed";
        }
        return "unknown key '" + name + "'" + KeySuggester.closest(name, ConfigKeys.TABLE.names(), RocketMqKeyNames.all())
            .map(closest -> "; did you mean " + closest + "?")
            .orElse(" (neither a Basalt nor a RocketMQ 5.2.0 broker key)");
    }
}
