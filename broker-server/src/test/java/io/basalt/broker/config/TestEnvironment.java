package io.basalt.broker.config;

import io.basalt.common.config.ConfigEnvironment;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/** A fixed {@link ConfigEnvironment}: no dependence on the machine the tests run on. */
final class TestEnvironment {

    static final String HOST_NAME = "test-host";
    static final String LOCAL_ADDRESS = "10.0.0.7";
    static final int PROCESSORS = 2;

    private TestEnvironment() {
    }

    static ConfigEnvironment in(Path root) {
        return in(root, Map.of());
    }

    /** Home is {@code root/home}, the working directory {@code root/work}; {@code variables} are the ${...} values. */
    static ConfigEnvironment in(Path root, Map<String, String> variables) {
        return new ConfigEnvironment(root.resolve("home"), root.resolve("work"), () -> HOST_NAME, () -> LOCAL_ADDRESS,
            PROCESSORS, name -> Optional.ofNullable(variables.get(name)));
    }
}
