package io.basalt.broker.config;

import io.basalt.broker.config.ConfigKey.UnresolvedKeyException;
import io.basalt.broker.config.ConfigValues.Source;
import io.basalt.broker.config.ValueType.InvalidValueException;
import io.basalt.store.FlushDiskType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns the settings of a file and the command line into {@link ConfigValues}, in three passes:
 * sort each setting's key into Basalt's, RocketMQ-only (warned, ignored) or unknown (an error with
 * the closest valid name); read every Basalt key from its setting or its default; then check the
 * rules that span keys. Problems of all passes are collected and thrown together. One use per
 * instance, on one thread.
 */
final class ConfigResolver {

    /** One {@code key=value} as the operator wrote it; {@code origin} names where, for messages. */
    record Setting(String key, String value, Source source, String origin) {
    }

    /** What resolution produced besides the values. */
    record Resolution(ConfigValues values, List<String> warnings, Set<String> ignoredKeys) {
    }

    private static final int CONSUME_QUEUE_UNIT_SIZE = 20;

    private final ConfigEnvironment environment;
    private final List<String> problems = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    private final Set<String> ignoredKeys = new LinkedHashSet<>();
    private final ConfigValues.Builder values = new ConfigValues.Builder();

    ConfigResolver(ConfigEnvironment environment) {
        this.environment = environment;
    }

    /** @param settings in the order they apply: a later setting of a key wins */
    Resolution resolve(List<Setting> settings) throws ConfigException {
        Map<ConfigKey<?>, Setting> chosen = classify(settings);
        for (ConfigKey<?> key : ConfigKeys.ALL) {
            read(key, chosen.get(key));
        }
        checkRole();
        checkPorts();
        checkStore();
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return new Resolution(values.build(), List.copyOf(warnings), Collections.unmodifiableSet(ignoredKeys));
    }

    private Map<ConfigKey<?>, Setting> classify(List<Setting> settings) {
        Map<ConfigKey<?>, Setting> chosen = new LinkedHashMap<>();
        for (Setting setting : settings) {
            ConfigKey<?> key = ConfigKeys.named(setting.key()).orElse(null);
            if (key != null) {
                chosen.put(key, setting);
            } else if (RocketMqKeyNames.contains(setting.key())) {
                if (ignoredKeys.add(setting.key())) {
                    warnings.add(setting.origin() + ": " + setting.key()
                        + " is a RocketMQ 5.2.0 broker setting that Basalt does not implement; ignored");
                }
            } else {
                problems.add(setting.origin() + ": unknown key '" + setting.key() + "'" + suggestion(setting.key()));
            }
        }
        return chosen;
    }

    private static String suggestion(String unknown) {
        List<String> basaltNames = ConfigKeys.ALL.stream().map(ConfigKey::name).toList();
        return KeySuggester.closest(unknown, basaltNames, RocketMqKeyNames.all())
            .map(name -> "; did you mean " + name + "?")
            .orElse(" (neither a Basalt nor a RocketMQ 5.2.0 broker key)");
    }

    private <T> void read(ConfigKey<T> key, Setting setting) {
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
            problems.add(origin + ": " + key.name() + "=" + text + " " + e.getMessage() + "; allowed: " + key.type().allowed());
        }
    }

    private ConfigKey.Resolved resolved() {
        return new ConfigKey.Resolved() {
            @Override
            public <V> V get(ConfigKey<V> key) {
                return values.get(key);
            }

            @Override
            public ConfigEnvironment environment() {
                return environment;
            }
        };
    }

    private void checkRole() {
        if (!values.has(ConfigKeys.BROKER_ROLE) || !values.has(ConfigKeys.BROKER_ID)) {
            return;
        }
        BrokerRole role = values.get(ConfigKeys.BROKER_ROLE);
        long brokerId = values.get(ConfigKeys.BROKER_ID);
        if (role == BrokerRole.SLAVE && brokerId == 0) {
            problems.add("brokerRole=SLAVE needs brokerId > 0 (brokerId=0 is the master's)");
        }
        if (role.isMaster() && brokerId != 0) {
            // RocketMQ's BrokerStartup forces a master's id to 0; Basalt does the same, but says so.
            warnings.add("brokerId=" + brokerId + " with brokerRole=" + role + ": a master's id is always 0; using 0");
            values.correct(ConfigKeys.BROKER_ID, 0L);
        }
        // A slave replicates only from the address it is given: it does not look its master up on the
        // name servers, so without haMasterAddress it would never replicate.
        if (role == BrokerRole.SLAVE && values.has(ConfigKeys.HA_MASTER_ADDRESS)
            && values.get(ConfigKeys.HA_MASTER_ADDRESS).isEmpty()) {
            problems.add("brokerRole=SLAVE needs haMasterAddress (the master's host:haListenPort)");
        }
    }

    private void checkPorts() {
        List<ConfigKey<Integer>> ports = List.of(ConfigKeys.LISTEN_PORT, ConfigKeys.HA_LISTEN_PORT, ConfigKeys.METRICS_PORT);
        for (int i = 0; i < ports.size(); i++) {
            for (int j = i + 1; j < ports.size(); j++) {
                ConfigKey<Integer> a = ports.get(i);
                ConfigKey<Integer> b = ports.get(j);
                if (values.has(a) && values.has(b) && values.get(a) != 0 && values.get(a).equals(values.get(b))) {
                    problems.add(a.name() + "=" + values.get(a) + " and " + b.name() + "=" + values.get(b) + " must differ");
                }
            }
        }
    }

    private void checkStore() {
        if (values.has(ConfigKeys.MAX_MESSAGE_SIZE) && values.has(ConfigKeys.MAPPED_FILE_SIZE_COMMIT_LOG)
            && values.get(ConfigKeys.MAX_MESSAGE_SIZE) >= values.get(ConfigKeys.MAPPED_FILE_SIZE_COMMIT_LOG)) {
            problems.add("maxMessageSize=" + values.get(ConfigKeys.MAX_MESSAGE_SIZE) + " must be smaller than mappedFileSizeCommitLog="
                + values.get(ConfigKeys.MAPPED_FILE_SIZE_COMMIT_LOG) + " (a message must fit in one CommitLog file)");
        }
        if (values.has(ConfigKeys.MAPPED_FILE_SIZE_CONSUME_QUEUE)) {
            int size = values.get(ConfigKeys.MAPPED_FILE_SIZE_CONSUME_QUEUE);
            int remainder = size % CONSUME_QUEUE_UNIT_SIZE;
            if (remainder != 0) {
                int rounded = size + CONSUME_QUEUE_UNIT_SIZE - remainder;
                warnings.add("mappedFileSizeConsumeQueue=" + size + " rounded up to " + rounded
                    + ", a multiple of the 20-byte ConsumeQueue entry (as RocketMQ does)");
                values.correct(ConfigKeys.MAPPED_FILE_SIZE_CONSUME_QUEUE, rounded);
            }
        }
        if (values.has(ConfigKeys.TRANSIENT_STORE_POOL_ENABLE) && values.has(ConfigKeys.FLUSH_DISK_TYPE)
            && values.has(ConfigKeys.BROKER_ROLE) && values.get(ConfigKeys.TRANSIENT_STORE_POOL_ENABLE)) {
            FlushDiskType flushDiskType = values.get(ConfigKeys.FLUSH_DISK_TYPE);
            BrokerRole role = values.get(ConfigKeys.BROKER_ROLE);
            if (flushDiskType != FlushDiskType.ASYNC_FLUSH || role == BrokerRole.SLAVE) {
                // RocketMQ silently ignores the flag in these cases; the effective value says what happens.
                warnings.add("transientStorePoolEnable=true has no effect with flushDiskType=" + flushDiskType
                    + " and brokerRole=" + role + " (it needs an ASYNC_FLUSH master); using false");
                values.correct(ConfigKeys.TRANSIENT_STORE_POOL_ENABLE, false);
            }
        }
    }
}
