package io.basalt.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.broker.config.BrokerCommandLine.Action;
import io.basalt.broker.config.BrokerCommandLine.Invocation;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BrokerCommandLineTest {

    @Test
    void startTakesAFileAndPropertyOverrides() throws Exception {
        Invocation invocation = BrokerCommandLine.parse("start", "-c", "/etc/basalt/broker.conf",
            "--listenPort=10921", "--brokerName=b-1", "--namesrvAddr=", "--listenPort=10931");
        assertEquals(Action.START, invocation.action());
        assertEquals(Path.of("/etc/basalt/broker.conf"), invocation.configFile());
        assertEquals(Map.of("listenPort", "10931", "brokerName", "b-1", "namesrvAddr", ""), invocation.overrides());
        assertEquals(List.of("brokerName", "namesrvAddr", "listenPort"), List.copyOf(invocation.overrides().keySet()),
            "command-line order, the last of a key winning");
    }

    @Test
    void fileDefaultsToConfBrokerConf() throws Exception {
        Invocation invocation = BrokerCommandLine.parse("start");
        assertEquals(BrokerConfiguration.DEFAULT_FILE, invocation.configFile());
        assertEquals(Path.of("conf/broker.conf"), invocation.configFile());
        assertEquals(Map.of(), invocation.overrides());
    }

    @Test
    void dashNIsRocketMqsNameServerOption() throws Exception {
        assertEquals(Map.of("namesrvAddr", "127.0.0.1:9876"), BrokerCommandLine.parse("start", "-n", "127.0.0.1:9876").overrides());
        assertEquals(Map.of("namesrvAddr", "b:1"), BrokerCommandLine.parse("start", "-n", "a:1", "--namesrvAddr=b:1").overrides());
    }

    @Test
    void rocketMqsStyleWithoutACommandStarts() throws Exception {
        Invocation invocation = BrokerCommandLine.parse("-n", "127.0.0.1:9876", "-c", "conf/broker-a.conf",
            "--brokerName=broker-a");
        assertEquals(Action.START, invocation.action());
        assertEquals(Path.of("conf/broker-a.conf"), invocation.configFile());
        assertEquals(Map.of("namesrvAddr", "127.0.0.1:9876", "brokerName", "broker-a"), invocation.overrides());
        Invocation bare = BrokerCommandLine.parse();
        assertEquals(Action.START, bare.action(), "RocketMQ's sh bin/mqbroker");
        assertEquals(BrokerConfiguration.DEFAULT_FILE, bare.configFile());
    }

    @Test
    void dashPAndDashMPrintTheConfiguration() throws Exception {
        assertEquals(Action.PRINT_ALL, BrokerCommandLine.parse("-c", "my.conf", "-p").action());
        assertEquals(Action.PRINT_ALL, BrokerCommandLine.parse("start", "--printConfigItem").action());
        assertEquals(Action.PRINT_IMPORTANT, BrokerCommandLine.parse("-m", "-c", "my.conf").action());
        assertEquals(Action.PRINT_IMPORTANT, BrokerCommandLine.parse("--printImportantConfig").action());
        assertEquals(Path.of("my.conf"), BrokerCommandLine.parse("-c", "my.conf", "-p").configFile());
        assertProblem("give one", "-p", "-m");
        assertProblem("not of the form --key=value", "stop", "-p");
    }

    @Test
    void stopTakesTheSameFileAndOverrides() throws Exception {
        Invocation invocation = BrokerCommandLine.parse("stop", "-c", "my.conf", "--storePathRootDir=/data/store");
        assertEquals(Action.STOP, invocation.action());
        assertEquals(Path.of("my.conf"), invocation.configFile());
        assertEquals(Map.of("storePathRootDir", "/data/store"), invocation.overrides());
    }

    @Test
    void helpExplainsBothCommands() throws Exception {
        for (String[] args : List.of(new String[] {"--help"}, new String[] {"-h"})) {
            Invocation invocation = BrokerCommandLine.parse(args);
            assertEquals(Action.HELP, invocation.action());
            assertTrue(invocation.usage().contains("start"), invocation.usage());
            assertTrue(invocation.usage().contains("stop"), invocation.usage());
        }
        Invocation start = BrokerCommandLine.parse("start", "--help");
        assertEquals(Action.HELP, start.action());
        assertTrue(start.usage().contains("-c=FILE"), start.usage());
        assertTrue(start.usage().contains("--key=value"), start.usage());
        assertTrue(start.usage().contains("conf/broker.conf"), "shows the default file: " + start.usage());
        assertEquals(BrokerCommandLine.usage(), BrokerCommandLine.parse("--help").usage());
    }

    @Test
    void badArgumentsAreReportedNotThrownAsCrashes() {
        assertProblem("not of the form --key=value", "start", "listenPort=1");
        assertProblem("not of the form --key=value", "start", "--listenPort");
        assertProblem("not of the form --key=value", "start", "-x");
        assertProblem("not of the form --key=value", "start", "--=1");
        assertProblem("-c", "start", "-c");
        assertProblem("restart", "restart");
    }

    private static void assertProblem(String expected, String... args) {
        String[] actual = args.length == 1 && args[0].isEmpty() ? new String[0] : args;
        ConfigException e = assertThrows(ConfigException.class, () -> BrokerCommandLine.parse(actual));
        assertTrue(e.getMessage().contains(expected), () -> String.join(" ", actual) + " -> " + e.getMessage());
    }
}
