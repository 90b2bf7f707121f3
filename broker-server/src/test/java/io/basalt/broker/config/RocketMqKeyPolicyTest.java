package io.basalt.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.broker.config.RocketMqKeyPolicy.KeyClass;
import io.basalt.broker.config.RocketMqKeyPolicy.Rule;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RocketMqKeyPolicyTest {

    @TempDir
    Path dir;

    private BrokerConfiguration of(Map<String, String> properties) throws ConfigException {
        return BrokerConfiguration.of(properties, TestEnvironment.in(dir));
    }

    @Test
    void everyRocketMqKeyBasaltDoesNotImplementIsClassifiedOnce() {
        Set<String> unimplemented = new TreeSet<>(RocketMqKeyNames.all());
        unimplemented.removeAll(ConfigKeys.TABLE.names());
        assertEquals(unimplemented, new TreeSet<>(RocketMqKeyPolicy.all().keySet()));
    }

    @Test
    void keysThatChangeAGuaranteeAreSemantic() {
        for (String key : List.of("authenticationProvider", "enableDLegerCommitLog", "enableSlaveActingMaster",
            "storeType", "authorizationMetadataProvider",
            "filterSupportRetry")) {
            Rule rule = RocketMqKeyPolicy.rule(key).orElseThrow();
            assertEquals(KeyClass.SEMANTIC, rule.keyClass(), key);
            assertTrue(!rule.instead().isEmpty() && !rule.honoured().isEmpty(), key);
        }
    }

    @Test
    void aSemanticKeyBasaltCannotHonourStopsStartUpNamingTheKeyAndWhatBasaltOffers() {
        for (Rule rule : semanticRules()) {
            String value = dishonourable(rule);
            ConfigException e = assertThrows(ConfigException.class, () -> of(Map.of(rule.key(), value)), rule.key());
            assertEquals(1, e.problems().size(), e.problems().toString());
            String problem = e.problems().get(0);
            assertTrue(problem.contains(rule.key() + "=" + value + " is a RocketMQ setting Basalt cannot honour"), problem);
            assertTrue(problem.contains(rule.instead()), problem);
        }
    }

    @Test
    void theIssuesExamplesAreRefusedWithTheirReason() throws Exception {
        List<String> provider = assertThrows(ConfigException.class,
            () -> of(Map.of("authenticationProvider", "com.example.MyProvider"))).problems();
        assertTrue(provider.get(0).contains("authenticationProvider=com.example.MyProvider")
            && provider.get(0).contains("cannot be plugged in"), provider.toString());
        List<String> store = assertThrows(ConfigException.class, () -> of(Map.of("storeType", "defaultRocksDB"))).problems();
        assertTrue(store.get(0).contains("storeType=defaultRocksDB") && store.get(0).contains("(accepted: default)"),
            store.toString());
        // messageDelayLevel is implemented now: any list of levels is taken, a malformed token stops start-up
        assertEquals(3, of(Map.of("messageDelayLevel", "1s 2s 3s")).store().delayLevels().maxLevel());
        List<String> levels = assertThrows(ConfigException.class, () -> of(Map.of("messageDelayLevel", "1s 2x"))).problems();
        assertTrue(levels.get(0).contains("messageDelayLevel") && levels.get(0).contains("'2x'"), levels.toString());
    }

    @Test
    void aSemanticKeyAtAValueBasaltHonoursStartsWithoutAWarning() throws Exception {
        Map<String, String> honoured = new LinkedHashMap<>();
        for (Rule rule : semanticRules()) {
            honoured.put(rule.key(), rule.honoured().get(0));
        }
        honoured.put("enableDLegerCommitLog", "FALSE");
        BrokerConfiguration config = of(honoured);
        assertEquals(List.of(), config.warnings());
        assertEquals(honoured.keySet(), config.ignoredKeys());
    }

    @Test
    void aTuningKeyIsWarnedAboutOnceAndIgnored() throws Exception {
        Map<String, String> tuning = new LinkedHashMap<>();
        RocketMqKeyPolicy.all().values().stream().filter(rule -> rule.keyClass() == KeyClass.TUNING)
            .forEach(rule -> tuning.put(rule.key(), "12345"));
        BrokerConfiguration config = of(tuning);
        assertEquals(tuning.size(), config.warnings().size());
        assertTrue(config.warnings().stream().allMatch(w -> w.contains("a tuning key: leaving it out changes no guarantee")));
        assertEquals(tuning.keySet(), config.ignoredKeys());
    }

    @Test
    void theSettingThatAppliesDecides() throws Exception {
        Path file = dir.resolve("broker.conf");
        java.nio.file.Files.writeString(file, "enableDLegerCommitLog=true\n");
        BrokerConfiguration config = BrokerConfiguration.load(file, Map.of("enableDLegerCommitLog", "false"),
            TestEnvironment.in(dir));
        assertEquals(Set.of("enableDLegerCommitLog"), config.ignoredKeys());
        assertThrows(ConfigException.class,
            () -> BrokerConfiguration.load(file, Map.of(), TestEnvironment.in(dir)));
    }

    private static List<Rule> semanticRules() {
        return RocketMqKeyPolicy.all().values().stream().filter(rule -> rule.keyClass() == KeyClass.SEMANTIC).toList();
    }

    /** A value the rule does not honour: the other boolean, another number, another text. */
    private static String dishonourable(Rule rule) {
        String honoured = rule.honoured().get(0);
        String value;
        if (honoured.equals("false")) {
            value = "true";
        } else if (honoured.equals("true")) {
            value = "false";
        } else if (honoured.matches("\\d+")) {
            value = String.valueOf(Long.parseLong(honoured) + 1);
        } else if (honoured.isEmpty()) {
            value = "/elsewhere";
        } else {
            value = honoured + "-other";
        }
        assertTrue(!rule.honours(value), rule.key() + "=" + value);
        return value;
    }
}
