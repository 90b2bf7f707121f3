package io.basalt.broker.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/** Reads {@code broker.conf} as RocketMQ does: a Java properties file in ISO-8859-1. */
final class PropertiesFile {

    private PropertiesFile() {
    }

    /** The file's entries in file order (a later duplicate replaces an earlier one, as in RocketMQ). */
    static Map<String, String> read(Path file) throws ConfigException {
        Map<String, String> entries = new LinkedHashMap<>();
        Properties properties = new Properties() {
            private static final long serialVersionUID = 1L;

            @Override
            public synchronized Object put(Object key, Object value) {
                entries.remove((String) key);
                entries.put((String) key, (String) value);
                return super.put(key, value);
            }
        };
        try (InputStream in = Files.newInputStream(file)) {
            properties.load(in);
        } catch (NoSuchFileException e) {
            throw new ConfigException(file + ": no such file (choose one with -c FILE)");
        } catch (IOException | IllegalArgumentException e) {
            throw new ConfigException(file + ": cannot be read (" + e + ")");
        }
        return entries;
    }
}
