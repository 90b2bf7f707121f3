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
    /** RocketMQ 5.3's ACL 2.0 keys, RocketMQ's TLS properties and its proxy's gRPC port: RocketMQ names too, of a later broker, the JVM or the proxy. */
    static final String LATER_RESOURCE = "rocketmq-5.3-auth-keys.txt";

    private static final Set<String> NAMES = load(RESOURCE);
    private static final Set<String> LATER_NAMES = load(LATER_RESOURCE);

    private RocketMqKeyNames() {
    }

    /** Whether {@code name} is a RocketMQ 5.2.0 broker key, or one of {@link #LATER_RESOURCE}. */
    static boolean contains(String name) {
        return NAMES.contains(name) || LATER_NAMES.contains(name);
    }

    /** Every name: RocketMQ 5.2.0's broker keys and the later ones. */
    static Set<String> all() {
        Set<String> all = new LinkedHashSet<>(NAMES);
        all.addAll(LATER_NAMES);
        return Collections.unmodifiableSet(all);
    }

    private static Set<String> load(String resource) {
        InputStream in = RocketMqKeyNames.class.getResourceAsStream(resource);
        if (in == null) {
            throw new IllegalStateException("resource " + resource + " is missing from the class path");
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
            throw new UncheckedIOException("cannot read resource " + resource, e);
        }
        return Collections.unmodifiableSet(names);
    }
}
