package io.basalt.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.common.config.ConfigKey;
import io.basalt.common.config.ValueType.InvalidValueException;
import io.basalt.ha.HAConfig;
import io.basalt.ha.HAKeys;
import io.basalt.store.StoreConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The key table and the config objects describe the same settings: every declared key reaches an
 * accessor of {@link BrokerConfig}, {@link StoreConfig} or {@link HAConfig} when {@code broker.conf}
 * changes it, every accessor changes with some key, and every accessor is called by main code.
 * A key that is accepted and never read, or an accessor no file can set, fails here.
 */
class ConfigTableCoverageTest {

    /** Module sources, seen from broker-server (the working directory of its tests). */
    private static final List<Path> MAIN_SOURCES = List.of("broker-store", "broker-ha", "broker-server").stream()
        .map(module -> Path.of("..", module, "src", "main", "java")).toList();

    @TempDir
    Path dir;

    @Test
    void everyKeyReachesAnAccessorAndEveryAccessorIsReachedFromBrokerConf() throws Exception {
        Map<String, String> defaults = configuration(Map.of()).asProperties();
        Set<String> reached = new TreeSet<>();
        List<String> unread = new ArrayList<>();
        for (ConfigKey<?> key : ConfigKeys.TABLE.keys()) {
            if (controllerOnlyWithoutControllerMode(key.name())) {
                continue;
            }
            Map<String, String> context = context(key.name());
            String before = context.containsKey(key.name()) ? context.get(key.name()) : defaults.get(key.name());
            String after = otherValue(key, before);
            Map<String, String> changed = new LinkedHashMap<>(context);
            changed.put(key.name(), after);
            Map<String, Object> a = accessors(configuration(context));
            Map<String, Object> b = accessors(configuration(changed));
            Set<String> differ = new LinkedHashSet<>();
            a.forEach((name, value) -> {
                if (!value.equals(b.get(name))) {
                    differ.add(name);
                }
            });
            if (differ.isEmpty()) {
                unread.add(key.name() + " (" + before + " -> " + after + ")");
            }
            reached.addAll(differ);
        }
        assertEquals(List.of(), unread, "keys no accessor reads");
        Set<String> unreached = new TreeSet<>(accessors(configuration(Map.of())).keySet());
        unreached.removeAll(reached);
        if (!ConfigKeys.TABLE.contains("enableControllerMode")) {
            unreached.removeAll(List.of("HAConfig.allAckInSyncStateSet", "HAConfig.inSyncReplicas", "HAConfig.minInSyncReplicas",
                "HAConfig.asyncLearner"));
        }
        assertEquals(Set.of(), unreached, "accessors no key changes");
    }

    @Test
    void everyAccessorIsCalledByMainCode() throws IOException {
        String sources = mainSources();
        List<String> uncalled = new ArrayList<>();
        for (Class<?> type : List.of(BrokerConfig.class, SecurityConfig.class, StoreConfig.class, HAConfig.class)) {
            for (Method method : accessorMethods(type)) {
                String call = "." + method.getName() + "()";
                if (!sources.contains(call)) {
                    uncalled.add(type.getSimpleName() + "." + method.getName());
                }
            }
        }
        assertEquals(List.of(), uncalled, "accessors nothing calls");
    }

    /** Keys whose effect shows only with others set: a slave's id. */
    /** Keys honoured only in controller mode cannot change from their default without it. */
    private static boolean controllerOnlyWithoutControllerMode(String key) {
        return HAKeys.CONTROLLER_MODE_ONLY.stream().anyMatch(k -> k.name().equals(key))
            && !ConfigKeys.TABLE.contains("enableControllerMode");
    }

    private static Map<String, String> context(String key) {
        if (HAKeys.CONTROLLER_MODE_ONLY.stream().anyMatch(k -> k.name().equals(key))) {
            return Map.of("enableControllerMode", "true", "controllerAddr", "127.0.0.1:9878");
        }
        if (key.equals("brokerId")) {
            return Map.of("brokerRole", "SLAVE", "haMasterAddress", "127.0.0.1:10912", "brokerId", "1");
        }
        if (key.equals("enableControllerMode")) {
            return Map.of("controllerAddr", "127.0.0.1:9878");
        }
        return Map.of();
    }

    /** A valid value of {@code key} other than {@code current}, found by trying likely candidates. */
    private String otherValue(ConfigKey<?> key, String current) {
        List<String> candidates = new ArrayList<>();
        if (current.equalsIgnoreCase("true") || current.equalsIgnoreCase("false")) {
            candidates.add(String.valueOf(!Boolean.parseBoolean(current)));
        }
        try {
            long n = Long.parseLong(current);
            Stream.of(n + 1, n - 1, n + 4096, n * 2, n / 2).map(String::valueOf).forEach(candidates::add);
        } catch (NumberFormatException notANumber) {
            // not a number
        }
        candidates.addAll(List.of("SYNC_FLUSH", "SYNC_MASTER", "POP", "127.0.0.1:1", dir.resolve("elsewhere").toString(),
            current + "x", "05", current + " 1s", "{\"username\":\"u1\",\"password\":\"p1\"}",
            "{\"accessKey\":\"a1\",\"secretKey\":\"s1\"}", "a-token-of-sixteen-characters", "10,34", "enforcing", "env:test"));
        for (String candidate : candidates) {
            if (candidate.equals(current)) {
                continue;
            }
            try {
                Object parsed = key.type().parse(candidate, TestEnvironment.in(dir));
                Object now = key.type().parse(current, TestEnvironment.in(dir));
                if (!parsed.equals(now)) {
                    return candidate;
                }
            } catch (InvalidValueException rejected) {
                // try the next
            }
        }
        throw new AssertionError("no other valid value for " + key.name() + " than " + current);
    }

    private BrokerConfiguration configuration(Map<String, String> properties) throws ConfigException {
        return BrokerConfiguration.of(properties, TestEnvironment.in(dir));
    }

    private static Map<String, Object> accessors(BrokerConfiguration config) throws ReflectiveOperationException {
        Map<String, Object> values = new LinkedHashMap<>();
        for (Object part : List.of(config.broker(), config.security(), config.store(), config.ha())) {
            for (Method method : accessorMethods(part.getClass())) {
                try {
                    values.put(part.getClass().getSimpleName() + "." + method.getName(), method.invoke(part));
                } catch (InvocationTargetException e) {
                    throw new AssertionError(method + " failed", e.getCause());
                }
            }
        }
        return values;
    }

    /** Public instance methods without parameters that return a value, except Object's and builders. */
    private static List<Method> accessorMethods(Class<?> type) {
        List<Method> methods = new ArrayList<>();
        for (Method method : type.getDeclaredMethods()) {
            if (Modifier.isPublic(method.getModifiers()) && !Modifier.isStatic(method.getModifiers())
                && method.getParameterCount() == 0 && method.getReturnType() != void.class
                && !List.of("toString", "hashCode", "toBuilder").contains(method.getName())) {
                methods.add(method);
            }
        }
        return methods;
    }

    private static String mainSources() throws IOException {
        StringBuilder text = new StringBuilder();
        for (Path root : MAIN_SOURCES) {
            try (Stream<Path> files = Files.walk(root)) {
                files.filter(file -> file.toString().endsWith(".java"))
                    .filter(file -> !Set.of("StoreConfig.java", "HAConfig.java", "BrokerConfig.java", "SecurityConfig.java")
                        .contains(file.getFileName().toString()))
                    .forEach(file -> {
                        try {
                            text.append(Files.readString(file));
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
            }
        }
        return text.toString();
    }
}
