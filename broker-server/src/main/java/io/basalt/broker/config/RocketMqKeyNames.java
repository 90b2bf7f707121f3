package io.basalt.broker.config;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The property names Apache RocketMQ 5.2.0's broker reads from {@code broker.conf}, from the
 * resource {@code rocketmq-5.2.0-broker-keys.txt} (its header says where the list comes from).
 * Basalt accepts such a key with a warning even where it does not implement it, so a RocketMQ
 * user's file starts.
 */
final class RocketMqKeyNames {

    static final String RESOURCE = "rocketmq-5.2.0-broker-keys.txt";

    private static final Set<String> NAMES = load();

    private RocketMqKeyNames() {
    }

    static boolean contains(String name) {
        return NAMES.contains(name);
    }

    static Set<String> all() {
        return NAMES;
    }

    private static Set<String> load() {
        InputStream in = RocketMqKeyNames.class.getResourceAsStream(RESOURCE);
        if (in == null) {
            throw new IllegalStateException("resource " + RESOURCE + " is missing from the class path");
        }
        Set<String> names = new LinkedHashSet<>();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                String name = line.strip();
                if (!name.isEmpty() && !name.startsWith("#")) {
                    names.add(name);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read resource " + RESOURCE, e);
        }
        return Collections.unmodifiableSet(names);
    }
}
