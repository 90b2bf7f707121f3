package io.basalt.broker.config;

import io.basalt.common.config.KeySuggester;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The NameServer-side settings of a broker that is its own NameServer (GET/UPDATE_NAMESRV_CONFIG): only those that
 * mean something for Basalt, {@code orderMessageEnable} (routes carry the topic's ORDER_TOPIC_CONFIG entry as
 * {@code orderTopicConf}, RocketMQ's default false). Read at start from, and written on update to, a properties
 * file beside the broker's metadata ({@code <storePathRootDir>/config/namesrv.properties}), only the changed lines,
 * atomically. Thread-safe.
 */
public final class NameServerSettings {

    public static final String ORDER_MESSAGE_ENABLE = "orderMessageEnable";
    /** RocketMQ's NameServer blacklist (fixed keys and NamesrvConfig.configBlackList's default). */
    static final Set<String> BLACKLIST = Set.of("configBlackList", "configStorePath", "kvConfigPath", "rocketmqHome");


    private final Path file;
    private volatile boolean orderMessageEnable;

    private NameServerSettings(Path file, boolean orderMessageEnable) {
        this.file = file;
        this.orderMessageEnable = orderMessageEnable;
    }

    /** Reads {@code file} if it exists; a bad value there stops start-up (ConfigException naming it). */
    public static NameServerSettings open(Path file) throws ConfigException {
        boolean order = false;
        if (Files.exists(file)) {
            Map<String, String> entries = PropertiesFile.read(file);
            List<String> problems = new ArrayList<>();
            for (Map.Entry<String, String> entry : entries.entrySet()) {
                String problem = problem(entry.getKey(), entry.getValue().strip());
                if (problem != null) {
                    problems.add(file + ": " + problem);
                }
            }
            if (!problems.isEmpty()) {
                throw new ConfigException(problems);
            }
            order = Boolean.parseBoolean(entries.getOrDefault(ORDER_MESSAGE_ENABLE, "false").strip());
        }
        return new NameServerSettings(file, order);
    }

    public boolean orderMessageEnable() {
        return orderMessageEnable;
    }

    public Path file() {
        return file;
    }

    /** Every setting as file text, sorted. */
    public SortedMap<String, String> properties() {
        SortedMap<String, String> properties = new TreeMap<>();
        properties.put(ORDER_MESSAGE_ENABLE, Boolean.toString(orderMessageEnable));
        return properties;
    }

    /** Applies {@code requested} whole (written to the file first) or refuses it whole. */
    public synchronized void update(Map<String, String> requested) throws ConfigUpdateRefusedException, IOException {
        for (String key : requested.keySet()) {
            if (BLACKLIST.contains(key)) {
                throw new ConfigUpdateRefusedException("Can not update config in black list.", true);
            }
        }
        List<String> problems = new ArrayList<>();
        requested.forEach((key, value) -> {
            String problem = problem(key, value.strip());
            if (problem != null) {
                problems.add(problem);
            }
        });
        if (!problems.isEmpty()) {
            throw new ConfigUpdateRefusedException("nothing changed: " + String.join("; ", problems), false);
        }
        Map<String, String> changed = new TreeMap<>();
        requested.forEach((key, value) -> changed.put(key, value.strip().toLowerCase(java.util.Locale.ROOT)));
        ConfigFileEditor.write(file, changed);
        if (changed.containsKey(ORDER_MESSAGE_ENABLE)) {
            orderMessageEnable = Boolean.parseBoolean(changed.get(ORDER_MESSAGE_ENABLE));
        }
    }

    private static String problem(String key, String value) {
        if (!ORDER_MESSAGE_ENABLE.equals(key)) {
            return "'" + key + "' is not a NameServer setting Basalt serves"
                + KeySuggester.closest(key, List.of(ORDER_MESSAGE_ENABLE), List.of())
                    .map(closest -> "; did you mean " + closest + "?").orElse(" (it serves " + ORDER_MESSAGE_ENABLE + ")");
        }
        if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
            return key + "=" + value + ": not true or false";
        }
        return null;
    }
}
