package io.basalt.broker.config;

import io.basalt.common.config.ConfigEnvironment;
import io.basalt.common.config.ConfigReader;
import io.basalt.common.config.ConfigReader.Setting;
import io.basalt.common.config.ConfigValues;
import io.basalt.common.config.ConfigValues.Source;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where the broker writes its logs, decided before the first logger exists (loading the
 * configuration logs, so the log directory must be known first). Reads {@code logsDir} through the
 * same key table as the real load, with its computed default ({@code logs/} beside
 * {@code storePathRootDir}), and stays quiet about problems: the real load reports them.
 * Called once, on the start-up thread.
 */
public final class LogsDirectory {

    private LogsDirectory() {
    }

    public static Path of(Path file, Map<String, String> overrides) {
        return of(file, overrides, ConfigEnvironment.system());
    }

    static Path of(Path file, Map<String, String> overrides, ConfigEnvironment environment) {
        Map<String, Setting> settings = new LinkedHashMap<>();
        try {
            PropertiesFile.read(file).forEach((key, value) -> settings.put(key, new Setting(key, value, Source.FILE, "")));
        } catch (ConfigException unreadable) {
            // the real load reports it; until then the defaults decide
        }
        overrides.forEach((key, value) -> settings.put(key, new Setting(key, value, Source.COMMAND_LINE, "")));
        settings.keySet().retainAll(ConfigKeys.TABLE.names());
        ConfigValues.Builder values = new ConfigReader(ConfigKeys.TABLE, environment).read(settings);
        if (values.has(ConfigKeys.LOGS_DIR)) {
            return new BrokerConfig(values.build()).logsDir();
        }
        // logsDir or the storePathRootDir it follows is invalid (the load will say so): beside the default store
        return environment.userHome().resolve("logs");
    }
}
