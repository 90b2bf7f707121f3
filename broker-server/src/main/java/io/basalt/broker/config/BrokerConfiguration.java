package io.basalt.broker.config;

import io.basalt.broker.config.ConfigResolver.Resolution;
import io.basalt.common.config.ConfigEnvironment;
import io.basalt.common.config.ConfigKey;
import io.basalt.common.config.ConfigReader.Setting;
import io.basalt.common.config.ConfigValues;
import io.basalt.common.config.ConfigValues.Source;
import io.basalt.ha.HAConfig;
import io.basalt.store.StoreConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's configuration, read once at start-up from {@code broker.conf} and the command line,
 * validated, and immutable afterwards. Values come from, in increasing priority: the defaults of
 * the key table, the file, the command-line {@code --key=value} overrides.
 *
 * <pre>{@code
 * BrokerConfiguration config = BrokerConfiguration.load(Path.of("conf/broker.conf"), Map.of("listenPort", "10921"));
 * log.info(config.effectiveConfiguration());
 * int port = config.broker().listenPort();
 * }</pre>
 *
 * <p>Thread-safe: every part is immutable.
 */
public final class BrokerConfiguration {

    /** What {@code -c} defaults to, relative to the working directory. */
    public static final Path DEFAULT_FILE = Path.of("conf", "broker.conf");
    /** The keys {@link #importantProperties()} always shows, RocketMQ's important fields that Basalt has. */
    private static final Set<String> IMPORTANT_KEYS = Set.of("brokerClusterName", "brokerName", "brokerId",
        "brokerRole", "brokerIP1", "listenPort", "namesrvAddr", "enableControllerMode", "controllerAddr",
        "storePathRootDir", "storePathCommitLog", "mappedFileSizeCommitLog", "flushDiskType", "aclEnable",
        "authenticationEnabled");

    private static final Logger LOG = LoggerFactory.getLogger(BrokerConfiguration.class);

    private final Optional<Path> file;
    private final int overrideCount;
    private final ConfigValues values;
    private final List<String> warnings;
    private final Set<String> ignoredKeys;
    private final Map<String, String> rocketMqOnlyValues;
    private final BrokerConfig broker;
    private final SecurityConfig security;
    private final StoreConfig store;
    private final HAConfig ha;

    private BrokerConfiguration(Optional<Path> file, int overrideCount, Resolution resolution) {
        this.file = file;
        this.overrideCount = overrideCount;
        this.values = resolution.values();
        this.warnings = resolution.warnings();
        this.ignoredKeys = resolution.ignoredKeys();
        this.rocketMqOnlyValues = resolution.rocketMqOnlyValues();
        this.broker = new BrokerConfig(values);
        this.security = new SecurityConfig(values);
        this.store = StoreConfig.from(values);
        this.ha = HAConfig.from(values);
    }

    /**
     * Reads {@code file} (a Java properties file, ISO-8859-1 as RocketMQ reads it) and applies
     * {@code overrides} (property name → value, from {@code --key=value}) on top. Logs one WARN per
     * RocketMQ tuning key that Basalt ignores and per value it corrected.
     *
     * @throws ConfigException listing every problem: an unreadable file, unknown keys (with the
     *                         closest valid name), bad values (with what is allowed), RocketMQ keys
     *                         set to what Basalt cannot honour (with what it offers instead), contradictions
     */
    public static BrokerConfiguration load(Path file, Map<String, String> overrides) throws ConfigException {
        return load(file, overrides, ConfigEnvironment.system());
    }

    /**
     * Builds the configuration from properties alone, without a file (for embedding and tests);
     * the properties are validated exactly as a file's.
     */
    public static BrokerConfiguration of(Map<String, String> properties) throws ConfigException {
        return of(properties, ConfigEnvironment.system());
    }

    static BrokerConfiguration load(Path file, Map<String, String> overrides, ConfigEnvironment environment)
        throws ConfigException {
        List<Setting> settings = new ArrayList<>();
        String origin = file.toString();
        PropertiesFile.read(file).forEach((key, value) -> settings.add(new Setting(key, value, Source.FILE, origin)));
        overrides.forEach((key, value) -> settings.add(new Setting(key, value, Source.COMMAND_LINE, "command line")));
        return resolve(Optional.of(file), overrides.size(), settings, environment);
    }

    static BrokerConfiguration of(Map<String, String> properties, ConfigEnvironment environment) throws ConfigException {
        List<Setting> settings = new ArrayList<>();
        properties.forEach((key, value) -> settings.add(new Setting(key, value, Source.PROPERTIES, "properties")));
        return resolve(Optional.empty(), properties.size(), settings, environment);
    }

    private static BrokerConfiguration resolve(Optional<Path> file, int overrideCount, List<Setting> settings,
                                               ConfigEnvironment environment) throws ConfigException {
        Resolution resolution = new ConfigResolver(environment).resolve(settings);
        resolution.warnings().forEach(warning -> LOG.warn("{}", warning));
        return new BrokerConfiguration(file, overrideCount, resolution);
    }

    public BrokerConfig broker() {
        return broker;
    }

    /** Access control, TLS and the security of Basalt's own endpoints. */
    public SecurityConfig security() {
        return security;
    }

    /** The store's configuration, ready for {@code MessageStore.open}. */
    public StoreConfig store() {
        return store;
    }

    /** Replication's configuration. */
    public HAConfig ha() {
        return ha;
    }

    /** The file this configuration was read from; empty when built from properties alone. */
    public Optional<Path> file() {
        return file;
    }

    /** What was accepted but not used, or corrected, one line each (also logged at WARN by load). */
    public List<String> warnings() {
        return warnings;
    }

    /** RocketMQ keys the file or command line set that Basalt does not implement (tuning, or semantic at an honoured value). */
    public Set<String> ignoredKeys() {
        return ignoredKeys;
    }

    /** The value the file or command line gave a RocketMQ key that Basalt does not implement (e.g. configBlackList). */
    public Optional<String> rocketMqOnlyValue(String key) {
        return Optional.ofNullable(rocketMqOnlyValues.get(key));
    }

    /**
     * This configuration as read from {@code original}'s file: for a configuration rebuilt from another one's
     * properties (free ports picked), so that runtime updates still go to the file the broker was started with.
     */
    public BrokerConfiguration withFileOf(BrokerConfiguration original) {
        return new BrokerConfiguration(original.file, overrideCount,
            new Resolution(values, warnings, ignoredKeys, original.rocketMqOnlyValues));
    }

    /** The resolved values, for a change made while the broker runs ({@link RuntimeConfiguration}). */
    ConfigValues values() {
        return values;
    }

    /**
     * This configuration with {@code changed} (key name to typed value) replacing values, as a runtime update
     * leaves it: the changed keys count as set by the file, where the update writes them.
     */
    BrokerConfiguration with(Map<String, Object> changed) {
        return new BrokerConfiguration(file, overrideCount,
            new Resolution(values.with(changed, Source.FILE), warnings, ignoredKeys, rocketMqOnlyValues));
    }

    /** Every Basalt key with its effective value, as file text, in table order. */
    public Map<String, String> asProperties() {
        Map<String, String> properties = new LinkedHashMap<>();
        for (ConfigKey<?> key : ConfigKeys.TABLE.keys()) {
            properties.put(key.name(), values.text(key));
        }
        return properties;
    }

    /**
     * What {@code mqbroker -m} prints: the keys that say what this broker is (cluster, name, id, role, address,
     * NameServers, Controller, store, flush, access control), then every other key set by the file or the command
     * line, in table order, as file text (secrets hidden).
     */
    public Map<String, String> importantProperties() {
        Map<String, String> properties = new LinkedHashMap<>();
        for (ConfigKey<?> key : ConfigKeys.TABLE.keys()) {
            if (IMPORTANT_KEYS.contains(key.name()) || values.source(key) != Source.DEFAULT) {
                properties.put(key.name(), values.text(key));
            }
        }
        return properties;
    }

    /**
     * The start-up print: every key grouped by section with its effective value and where the value
     * came from, then the ignored RocketMQ keys.
     */
    public String effectiveConfiguration() {
        String nl = System.lineSeparator();
        StringBuilder text = new StringBuilder("Effective configuration (")
            .append(file.map(path -> "file " + path.toAbsolutePath().normalize()).orElse("no file"))
            .append(", ").append(overrideCount).append(overrideCount == 1 ? " override" : " overrides").append("):");
        List<ConfigKey<?>> keys = ConfigKeys.TABLE.keys();
        int width = keys.stream().mapToInt(key -> key.name().length()).max().orElse(0);
        for (String section : keys.stream().map(ConfigKey::section).distinct().toList()) {
            text.append(nl).append("[").append(section).append("]");
            for (ConfigKey<?> key : keys) {
                if (!key.section().equals(section)) {
                    continue;
                }
                String value = values.text(key);
                text.append(nl).append("  ").append(key.name()).append(" ".repeat(width - key.name().length()))
                    .append(" = ").append(value.isEmpty() ? "<none>" : value)
                    .append("  (").append(values.source(key).label()).append(")");
            }
        }
        if (!ignoredKeys.isEmpty()) {
            text.append(nl).append("[ignored RocketMQ keys]").append(nl).append("  ").append(String.join(", ", ignoredKeys));
        }
        return text.toString();
    }

    @Override
    public String toString() {
        return effectiveConfiguration();
    }
}
