package io.basalt.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RuntimeConfigurationTest {

    private static final String FILE_TEXT = """
        # the operator's broker
        brokerClusterName = ClusterA
        ! an old-style comment
        autoCreateTopicEnable=true
        listenPort=10911

        # secrets stay here
        tls.server.keyPassword=s3cret-password
        brokerPermission=6
        configBlackList=configBlackList;brokerConfigPath;slaveReadEnable
        """;

    @TempDir
    Path dir;
    private Path file;
    private RuntimeConfiguration runtime;
    private final List<Boolean> applied = new ArrayList<>();
    private final AtomicLong clock = new AtomicLong(1_000);

    @BeforeEach
    void setUp() throws Exception {
        file = dir.resolve("broker.conf");
        Files.writeString(file, FILE_TEXT, StandardCharsets.ISO_8859_1);
        BrokerConfiguration configuration = BrokerConfiguration.load(file, Map.of(), TestEnvironment.in(dir));
        runtime = new RuntimeConfiguration(configuration, file, clock::get);
        runtime.applyLive("autoCreateTopicEnable", updated -> applied.add(updated.broker().autoCreateTopicEnable()));
        runtime.applyLive("autoCreateSubscriptionGroup", updated -> { });
    }

    @Test
    void aLiveKeyIsAppliedAtOnceAndWrittenIntoTheFileKeepingEverythingElse() throws Exception {
        clock.set(2_000);
        RuntimeConfiguration.Update update = runtime.update(Map.of("autoCreateTopicEnable", "false"));

        assertEquals(List.of("autoCreateTopicEnable"), update.applied());
        assertEquals(List.of(false), applied);
        assertFalse(runtime.current().broker().autoCreateTopicEnable());
        assertEquals("false", runtime.effectiveProperties().get("autoCreateTopicEnable"));
        assertEquals(new RuntimeConfiguration.Version(1, 2_000), runtime.version());
        assertEquals(FILE_TEXT.replace("autoCreateTopicEnable=true", "autoCreateTopicEnable=false"),
            Files.readString(file, StandardCharsets.ISO_8859_1));
        assertFalse(BrokerConfiguration.load(file, Map.of(), TestEnvironment.in(dir)).broker().autoCreateTopicEnable());
    }

    @Test
    void aKeyNotInTheFileIsAppendedAndNoTemporaryFileIsLeft() throws Exception {
        runtime.update(Map.of("autoCreateSubscriptionGroup", "false"));

        assertEquals(FILE_TEXT + "autoCreateSubscriptionGroup=false\n", Files.readString(file, StandardCharsets.ISO_8859_1));
        try (var files = Files.list(dir)) {
            assertEquals(List.of("broker.conf"), files.map(p -> p.getFileName().toString())
                .filter(name -> name.startsWith("broker.conf")).toList());
        }
    }

    @Test
    void theRewrittenFileKeepsItsPermissions() throws Exception {
        java.util.Set<java.nio.file.attribute.PosixFilePermission> permissions =
            java.nio.file.attribute.PosixFilePermissions.fromString("rw-r-----");
        Files.setPosixFilePermissions(file, permissions);

        runtime.update(Map.of("autoCreateTopicEnable", "false"));

        assertEquals(permissions, Files.getPosixFilePermissions(file));
    }

    @Test
    void aKeyThatNeedsARestartRefusesTheWholeUpdate() throws IOException {
        ConfigUpdateRefusedException refused = assertThrows(ConfigUpdateRefusedException.class,
            () -> runtime.update(Map.of("autoCreateTopicEnable", "false", "listenPort", "10921")));

        assertFalse(refused.blacklisted());
        assertTrue(refused.getMessage().contains("listenPort needs a restart"), refused.getMessage());
        assertTrue(applied.isEmpty());
        assertTrue(runtime.current().broker().autoCreateTopicEnable());
        assertEquals(0, runtime.version().counter());
        assertEquals(FILE_TEXT, Files.readString(file, StandardCharsets.ISO_8859_1));
    }

    @Test
    void blacklistedKeysAreRefusedIncludingThoseOfConfigBlackList() throws IOException {
        for (String key : List.of("brokerConfigPath", "rocketmqHome", "configBlackList", "slaveReadEnable")) {
            ConfigUpdateRefusedException refused = assertThrows(
                ConfigUpdateRefusedException.class,
                () -> runtime.update(Map.of(key, "x", "autoCreateTopicEnable", "false")), key);
            assertTrue(refused.blacklisted(), key);
            assertEquals("Can not update config in black list.", refused.getMessage());
        }
        assertEquals(FILE_TEXT, Files.readString(file, StandardCharsets.ISO_8859_1));
    }

    @Test
    void anUnknownKeyIsNamedWithTheClosestValidKey() {
        ConfigUpdateRefusedException refused = assertThrows(ConfigUpdateRefusedException.class,
            () -> runtime.update(Map.of("autoCreateTopicEnabled", "false")));

        assertTrue(refused.getMessage().contains("unknown key 'autoCreateTopicEnabled'; did you mean autoCreateTopicEnable?"),
            refused.getMessage());
    }

    @Test
    void anInvalidValueIsRefusedNotIgnored() throws IOException {
        ConfigUpdateRefusedException refused = assertThrows(ConfigUpdateRefusedException.class,
            () -> runtime.update(Map.of("autoCreateTopicEnable", "maybe")));

        assertTrue(refused.getMessage().startsWith("nothing changed: autoCreateTopicEnable=maybe"), refused.getMessage());
        assertTrue(runtime.current().broker().autoCreateTopicEnable());
        assertEquals(FILE_TEXT, Files.readString(file, StandardCharsets.ISO_8859_1));
    }

    @Test
    void aRocketMqKeyBasaltDoesNotImplementIsRefused() {
        ConfigUpdateRefusedException refused = assertThrows(ConfigUpdateRefusedException.class,
            () -> runtime.update(Map.of("longPollingEnable", "false")));

        assertTrue(refused.getMessage().contains("longPollingEnable is a RocketMQ 5.2.0 broker setting that Basalt does not"
            + " implement"), refused.getMessage());
    }

    @Test
    void theSameValueChangesNothingAndNeedsNoRestart() throws Exception {
        RuntimeConfiguration.Update update = runtime.update(Map.of("listenPort", "10911"));

        assertTrue(update.applied().isEmpty());
        assertEquals(List.of("listenPort"), update.unchanged());
        assertEquals(0, runtime.version().counter());
    }

    @Test
    void secretsAreNeverReturned() {
        Map<String, String> properties = runtime.effectiveProperties();

        assertFalse(properties.containsKey("tls.server.keyPassword"));
        assertFalse(properties.values().stream().anyMatch(value -> value.contains("s3cret")));
        assertEquals("ClusterA", properties.get("brokerClusterName"));
        assertEquals(properties.keySet().stream().sorted().toList(), List.copyOf(properties.keySet()));
    }

    @Test
    void aCommandLineOverrideOfAnAppliedKeyIsPointedOut() throws Exception {
        BrokerConfiguration configuration = BrokerConfiguration.load(file, Map.of("autoCreateTopicEnable", "true"),
            TestEnvironment.in(dir));
        RuntimeConfiguration overridden = new RuntimeConfiguration(configuration, file, clock::get);
        overridden.applyLive("autoCreateTopicEnable", updated -> { });

        RuntimeConfiguration.Update update = overridden.update(Map.of("autoCreateTopicEnable", "false"));

        assertEquals(List.of("autoCreateTopicEnable"), update.commandLineSet());
        assertTrue(update.summary().contains("the command line also sets autoCreateTopicEnable"), update.summary());
    }
}
