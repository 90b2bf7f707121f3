package io.basalt.broker.grpc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * A 5.x SDK's version string ({@code x-mq-client-version}, e.g. {@code 5.0.7}) as the MQVersion ordinal the broker's
 * client registries record for remoting clients, so that admin queries show it the same way.
 */
final class ClientVersions {
    private static final List<String> NAMES = load();

    private ClientVersions() {
    }

    /** The ordinal of {@code V5_0_7} for "5.0.7"; 0 for an empty or unknown version. */
    static int ordinalOf(String version) {
        if (version == null || version.isBlank()) {
            return 0;
        }
        String name = "V" + version.trim().toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
        int i = NAMES.indexOf(name);
        return Math.max(i, 0);
    }

    private static List<String> load() {
        try (InputStream in = ClientVersions.class.getResourceAsStream("/io/basalt/broker/metrics/client-versions.txt")) {
            if (in == null) {
                throw new IllegalStateException("client-versions.txt missing from the broker's jar");
            }
            return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines().map(String::trim)
                .filter(l -> !l.isEmpty()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
