package io.basalt.broker.config;

import io.basalt.ha.BrokerRole;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.basalt.common.config.ConfigKey;
import io.basalt.store.FlushDiskType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

class BrokerConfigurationTest {

    @TempDir
    Path dir;

    private BrokerConfiguration of(Map<String, String> properties) throws ConfigException {
        return BrokerConfiguration.of(properties, TestEnvironment.in(dir));
    }

    private BrokerConfiguration load(String fileText, Map<String, String> overrides) throws ConfigException, IOException {
        Path file = dir.resolve("broker.conf");
        Files.writeString(file, fileText, StandardCharsets.ISO_8859_1);
        return BrokerConfiguration.load(file, overrides, TestEnvironment.in(dir));
    }

    private List<String> problemsOf(Map<String, String> properties) {
        return assertThrows(ConfigException.class, () -> of(properties)).problems();
    }

    private static void assertOneProblemContaining(List<String> problems, String... parts) {
        assertEquals(1, problems.size(), problems.toString());
        for (String part : parts) {
            assertTrue(problems.get(0).contains(part), () -> "'" + problems.get(0) + "' lacks '" + part + "'");
        }
    }

    @Test
    void defaultsAreRocketMqsWithBasaltsOwnWhereDocumented() throws Exception {
        BrokerConfiguration config = of(Map.of());
        Path home = dir.resolve("home");

        assertEquals("DefaultCluster", config.broker().brokerClusterName());
        assertEquals(TestEnvironment.HOST_NAME, config.broker().brokerName());
        assertEquals(0L, config.broker().brokerId());
        assertEquals(BrokerRole.ASYNC_MASTER, config.broker().brokerRole());
        assertEquals(10911, config.broker().listenPort());
        assertEquals("0.0.0.0", config.broker().bindAddress());
        assertEquals(TestEnvironment.LOCAL_ADDRESS, config.broker().brokerIP1());
        assertEquals(List.of(), config.broker().namesrvAddr());
        assertTrue(config.broker().autoCreateTopicEnable());
        assertEquals(8, config.broker().defaultTopicQueueNums());
        assertEquals(Math.min(TestEnvironment.PROCESSORS, 4), config.broker().sendMessageThreadPoolNums());
        assertEquals(16 + 2 * TestEnvironment.PROCESSORS, config.broker().pullMessageThreadPoolNums());
        assertEquals(10000, config.broker().sendThreadPoolQueueCapacity());
        assertEquals(100000, config.broker().pullThreadPoolQueueCapacity());
        assertEquals(200L, config.broker().waitTimeMillsInSendQueue());
        assertEquals(5000L, config.broker().waitTimeMillsInPullQueue());
        assertEquals(5557, config.broker().metricsPort());
        assertEquals(home.resolve("logs"), config.broker().logsDir());
        assertEquals(home.resolve("store/broker.pid"), config.broker().pidFile());

        assertEquals(home.resolve("store"), config.store().rootDir());
        assertEquals(home.resolve("store/commitlog"), config.store().commitLogDir());
        assertEquals(1024 * 1024 * 1024, config.store().mappedFileSizeCommitLog());
        assertEquals(300_000 * 20, config.store().mappedFileSizeConsumeQueue());
        assertEquals(FlushDiskType.ASYNC_FLUSH, config.store().flushDiskType());
        assertEquals(500, config.store().flushIntervalCommitLog());
        assertEquals(4, config.store().flushCommitLogLeastPages());
        assertEquals(10000, config.store().flushCommitLogThoroughInterval());
        assertTrue(config.store().flushCommitLogTimed());
        assertEquals(200, config.store().commitIntervalCommitLog());
        assertEquals(4, config.store().commitCommitLogLeastPages());
        assertEquals(200, config.store().commitCommitLogThoroughInterval());
        assertEquals(5000, config.store().syncFlushTimeout());
        assertEquals(4 * 1024 * 1024, config.store().maxMessageSize());
        assertEquals(1000L, config.store().osPageCacheBusyTimeOutMills());
        assertFalse(config.store().transientStorePoolEnable());
        assertEquals(5, config.store().transientStorePoolSize());
        assertTrue(config.store().warmMapedFileEnable(), "Basalt prewarms by default");
        assertEquals(4096, config.store().flushLeastPagesWhenWarmMapedFile());
        assertEquals(72, config.store().fileReservedTime());
        assertEquals("04", config.store().deleteWhen());
        assertEquals(75, config.store().diskMaxUsedSpaceRatio());

        assertEquals(10912, config.ha().haListenPort());
        assertEquals(Optional.empty(), config.broker().haMasterAddress());
        assertEquals(256 * 1024 * 1024, config.ha().haMaxGapNotInSync());
        assertEquals(5000, config.ha().haSendHeartbeatInterval());
        assertEquals(20000, config.ha().haHousekeepingInterval());
        assertEquals(32 * 1024, config.ha().haTransferBatchSize());
        assertEquals(3000, config.ha().slaveTimeoutMs());
        assertEquals(List.of(), config.warnings());
    }

    @Test
    void loadsWithThisMachinesEnvironment() throws Exception {
        BrokerConfiguration config = BrokerConfiguration.of(Map.of("storePathRootDir", dir.toString()));
        assertFalse(config.broker().brokerName().isEmpty());
        assertFalse(config.broker().brokerIP1().isEmpty());
        assertTrue(config.broker().sendMessageThreadPoolNums() >= 1);
        assertEquals(dir.resolve("commitlog"), config.store().commitLogDir());
    }

    @Test
    void eachIgnoredKeyIsLoggedAsOneWarning() throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger(BrokerConfiguration.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            load("enableCalcFilterBitMap=true\nbrokerName=b\n", Map.of());
        } finally {
            logger.detachAppender(appender);
        }
        assertEquals(1, appender.list.size());
        assertEquals(Level.WARN, appender.list.get(0).getLevel());
        assertTrue(appender.list.get(0).getFormattedMessage().contains("enableCalcFilterBitMap"));
    }

    @Test
    void typoStopsStartUpAndNamesTheClosestKey() {
        assertOneProblemContaining(problemsOf(Map.of("flushDiskTyp", "SYNC_FLUSH")),
            "unknown key 'flushDiskTyp'", "did you mean flushDiskType?");
        assertOneProblemContaining(problemsOf(Map.of("ListenPort", "10911")), "did you mean listenPort?");
    }

    @Test
    void typoOfARocketMqOnlyKeySuggestsThatKey() {
        assertOneProblemContaining(problemsOf(Map.of("enablePropertyFiltr", "true")), "did you mean enablePropertyFilter?");
    }

    @Test
    void unknownKeyFarFromEveryNameGetsNoGuess() {
        assertOneProblemContaining(problemsOf(Map.of("zzqx", "1")), "unknown key 'zzqx'", "neither a Basalt nor a RocketMQ");
    }

    @Test
    void nonNumericIntegerNamesKeyValueAndWhatIsAllowed() {
        assertOneProblemContaining(problemsOf(Map.of("listenPort", "10911x")),
            "listenPort=10911x is not an integer", "allowed: an integer from 0 to 65535");
        assertOneProblemContaining(problemsOf(Map.of("brokerId", "one")), "brokerId=one is not an integer");
    }

    @Test
    void outOfRangeNamesKeyValueAndRange() {
        assertOneProblemContaining(problemsOf(Map.of("listenPort", "70000")),
            "listenPort=70000 is out of range", "an integer from 0 to 65535");
        // RocketMQ silently clamps this to 95; Basalt refuses.
        assertOneProblemContaining(problemsOf(Map.of("diskMaxUsedSpaceRatio", "99")),
            "diskMaxUsedSpaceRatio=99 is out of range", "from 10 to 95");
        assertOneProblemContaining(problemsOf(Map.of("syncFlushTimeout", "0")), "syncFlushTimeout=0 is out of range");
        assertOneProblemContaining(problemsOf(Map.of("mappedFileSizeCommitLog", "99999999999")), "is out of range");
        assertOneProblemContaining(problemsOf(Map.of("mappedFileSizeCommitLog", "1000000")),
            "mappedFileSizeCommitLog=1000000 is not a multiple of 4096");
    }

    @Test
    void unknownEnumValueListsTheAllowedOnes() {
        assertOneProblemContaining(problemsOf(Map.of("flushDiskType", "FAST_FLUSH")),
            "flushDiskType=FAST_FLUSH is not a known value", "allowed: one of ASYNC_FLUSH, SYNC_FLUSH");
        assertOneProblemContaining(problemsOf(Map.of("brokerRole", "slave")),
            "names are upper case: SLAVE", "one of ASYNC_MASTER, SYNC_MASTER, SLAVE");
    }

    @Test
    void booleanMustBeTrueOrFalseNotSilentlyFalse() throws Exception {
        assertOneProblemContaining(problemsOf(Map.of("autoCreateTopicEnable", "yes")),
            "autoCreateTopicEnable=yes is not a boolean", "allowed: true or false");
        assertFalse(of(Map.of("autoCreateTopicEnable", "FALSE")).broker().autoCreateTopicEnable());
    }

    @Test
    void theTopicKeysHaveRocketMqsDefaultsAndTheTraceTopicMustBeATopicName() throws Exception {
        BrokerConfig defaults = of(Map.of()).broker();
        assertTrue(defaults.clusterTopicEnable());
        assertTrue(defaults.brokerTopicEnable());
        assertFalse(defaults.traceTopicEnable());
        assertEquals("RMQ_SYS_TRACE_TOPIC", defaults.msgTraceTopicName());
        assertOneProblemContaining(problemsOf(Map.of("msgTraceTopicName", "my.traces")),
            "msgTraceTopicName=my.traces is not a topic name", "contains illegal characters");
    }

    @Test
    void everyProblemIsReportedAtOnce() throws Exception {
        ConfigException e = assertThrows(ConfigException.class, () -> load("""
            flushDiskTyp=SYNC_FLUSH
            listenPort=abc
            brokerRole=MASTER
            fileReservedTime=-1
            """, Map.of("defaultTopicQueueNums", "0")));
        assertEquals(5, e.problems().size(), e.getMessage());
        assertTrue(e.getMessage().startsWith("invalid broker configuration (5 problems):"), e.getMessage());
        for (String key : List.of("flushDiskTyp", "listenPort=abc", "brokerRole=MASTER", "fileReservedTime=-1", "defaultTopicQueueNums=0")) {
            assertTrue(e.getMessage().contains(key), key);
        }
        assertTrue(e.problems().get(0).startsWith(dir.resolve("broker.conf") + ": "), "file problems name the file");
        assertTrue(e.problems().contains("command line: defaultTopicQueueNums=0 is out of range; allowed: an integer from 1 to 1024"),
            "override problems say so: " + e.problems());
    }

    @Test
    void rocketMqKeyBasaltDoesNotImplementWarnsOnceAndStarts() throws Exception {
        BrokerConfiguration config = load("""
            enableCalcFilterBitMap=true
            serverWorkerThreads=16
            """, Map.of("enableCalcFilterBitMap", "false"));
        assertEquals(List.of("enableCalcFilterBitMap", "serverWorkerThreads"), List.copyOf(config.ignoredKeys()));
        assertEquals(2, config.warnings().size(), config.warnings().toString());
        assertTrue(config.warnings().get(0).contains("enableCalcFilterBitMap is a RocketMQ 5.2.0 broker setting that Basalt does not implement"));
        assertFalse(config.asProperties().containsKey("enableCalcFilterBitMap"));
    }

    @Test
    void commandLineOverridesWinOverTheFileAndAreValidatedTheSame() throws Exception {
        String file = "listenPort=10921\nbrokerName=from-file\nflushDiskType=ASYNC_FLUSH\n";
        Map<String, String> overrides = new LinkedHashMap<>();
        overrides.put("listenPort", "10931");
        overrides.put("flushDiskType", "SYNC_FLUSH");
        BrokerConfiguration config = load(file, overrides);
        assertEquals(10931, config.broker().listenPort());
        assertEquals(10932, config.ha().haListenPort(), "computed defaults follow the override");
        assertEquals(FlushDiskType.SYNC_FLUSH, config.store().flushDiskType());
        assertEquals("from-file", config.broker().brokerName());

        ConfigException e = assertThrows(ConfigException.class, () -> load(file, Map.of("listenPort", "-1")));
        assertOneProblemContaining(e.problems(), "command line: listenPort=-1 is out of range");
        e = assertThrows(ConfigException.class, () -> load(file, Map.of("listenPrt", "1")));
        assertOneProblemContaining(e.problems(), "command line: unknown key 'listenPrt'", "did you mean listenPort?");
    }

    @Test
    void valuesAreTrimmedAndLaterDuplicatesWin() throws Exception {
        BrokerConfiguration config = load("listenPort = 10921  \nlistenPort=10941\nbrokerName=\tb1 \n", Map.of());
        assertEquals(10941, config.broker().listenPort());
        assertEquals("b1", config.broker().brokerName());
    }

    @Test
    void pathsResolveVariablesHomeAndWorkingDirectory() throws Exception {
        BrokerConfiguration config = BrokerConfiguration.of(Map.of(
                "storePathRootDir", "${user.home}/data/../rmq",
                "storePathCommitLog", "${DISK}/commitlog",
                "logsDir", "logs",
                "pidFile", "~/run/broker.pid"),
            TestEnvironment.in(dir, Map.of("DISK", "/mnt/fast")));
        assertEquals(dir.resolve("home/rmq"), config.store().rootDir());
        assertEquals(Path.of("/mnt/fast/commitlog"), config.store().commitLogDir());
        assertEquals(dir.resolve("work/logs"), config.broker().logsDir(), "relative to the working directory");
        assertEquals(dir.resolve("home/run/broker.pid"), config.broker().pidFile());

        BrokerConfiguration relative = of(Map.of("storePathRootDir", "store"));
        assertEquals(dir.resolve("work/store"), relative.store().rootDir());
        assertEquals(dir.resolve("work/store/commitlog"), relative.store().commitLogDir());
        assertEquals(dir.resolve("work/logs"), relative.broker().logsDir(), "logs/ beside the store");
    }

    @Test
    void unknownVariableAndSeveralPathsAreRejected() {
        assertOneProblemContaining(problemsOf(Map.of("storePathRootDir", "${NO_SUCH_VAR}/store")),
            "storePathRootDir=${NO_SUCH_VAR}/store refers to ${NO_SUCH_VAR}");
        assertOneProblemContaining(problemsOf(Map.of("storePathCommitLog", "/a/commitlog;/b/commitlog")),
            "lists several paths");
    }

    @Test
    void computedDefaultOfARejectedKeyIsNotReportedTwice() {
        List<String> problems = problemsOf(Map.of("listenPort", "x", "storePathRootDir", "${NOPE}"));
        assertEquals(2, problems.size(), problems.toString());
    }

    @Test
    void computedDefaultOutOfRangeSaysWhereItCameFrom() {
        assertOneProblemContaining(problemsOf(Map.of("listenPort", "65535")),
            "default (listenPort + 1 (0 if listenPort is 0)): haListenPort=65536 is out of range");
    }

    @Test
    void addressesAreHostPort() throws Exception {
        BrokerConfiguration config = of(Map.of("namesrvAddr", "ns1:9876; 10.0.0.2:9876;[::1]:9876",
            "brokerRole", "SLAVE", "brokerId", "1", "haMasterAddress", "10.0.0.1:10912"));
        assertEquals(List.of(new HostPort("ns1", 9876), new HostPort("10.0.0.2", 9876), new HostPort("::1", 9876)),
            config.broker().namesrvAddr());
        assertEquals("ns1:9876;10.0.0.2:9876;[::1]:9876", config.asProperties().get("namesrvAddr"));
        assertEquals(Optional.of(new HostPort("10.0.0.1", 10912)), config.broker().haMasterAddress());
        assertOneProblemContaining(problemsOf(Map.of("namesrvAddr", "ns1:9876;ns2")),
            "namesrvAddr=ns1:9876;ns2 has an entry 'ns2' that is not host:port");
        assertOneProblemContaining(problemsOf(Map.of("haMasterAddress", "master:99999")), "haMasterAddress=master:99999 is not host:port (port 99999 is not in 1..65535)");
        assertOneProblemContaining(problemsOf(Map.of("haMasterAddress", "::1:10912")), "an IPv6 host needs brackets");
    }

    @Test
    void namesrvAddrDefaultsToRocketMqsEnvironmentVariable() throws Exception {
        BrokerConfiguration config = BrokerConfiguration.of(Map.of(), TestEnvironment.in(dir, Map.of("NAMESRV_ADDR", "ns:9876")));
        assertEquals(List.of(new HostPort("ns", 9876)), config.broker().namesrvAddr());
    }

    @Test
    void deleteWhenTakesHoursOfTheDay() throws Exception {
        assertEquals("04;16", of(Map.of("deleteWhen", "16;04")).store().deleteWhen());
        assertEquals("04;16", of(Map.of("deleteWhen", "16;4")).asProperties().get("deleteWhen"));
        assertOneProblemContaining(problemsOf(Map.of("deleteWhen", "25")), "deleteWhen=25 has an hour 25 outside 0..23");
        assertOneProblemContaining(problemsOf(Map.of("deleteWhen", "4am")), "deleteWhen=4am is not a list of hours");
    }

    @Test
    void slaveNeedsAPositiveIdAndAMaster() throws Exception {
        assertOneProblemContaining(problemsOf(Map.of("brokerRole", "SLAVE", "haMasterAddress", "m:10912")),
            "brokerRole=SLAVE needs brokerId > 0");
        assertOneProblemContaining(problemsOf(Map.of("brokerRole", "SLAVE", "brokerId", "1")),
            "brokerRole=SLAVE needs haMasterAddress");
        // the NameServers name the master's HA address (haServerAddr), as for RocketMQ's slave
        BrokerConfiguration slave = of(Map.of("brokerRole", "SLAVE", "brokerId", "1", "namesrvAddr", "n:9876"));
        assertTrue(slave.broker().haMasterAddress().isEmpty());
    }

    @Test
    void masterIdIsZeroAsInRocketMqAndTheCorrectionIsWarned() throws Exception {
        BrokerConfiguration config = of(Map.of("brokerRole", "SYNC_MASTER", "brokerId", "3"));
        assertEquals(0L, config.broker().brokerId());
        assertEquals(1, config.warnings().size());
        assertTrue(config.warnings().get(0).contains("brokerId=3 with brokerRole=SYNC_MASTER"));
    }

    @Test
    void portsMustDiffer() {
        assertOneProblemContaining(problemsOf(Map.of("haListenPort", "10911")), "listenPort=10911 and haListenPort=10911 must differ");
        assertOneProblemContaining(problemsOf(Map.of("metricsPort", "10912")), "haListenPort=10912 and metricsPort=10912 must differ");
    }

    @Test
    void theGrpcPortFollowsListenPortSoTwoBrokersOfAHostDiffer() throws Exception {
        assertEquals(8081, of(Map.of()).broker().grpcServerPort(), "RocketMQ's proxy port with the default listenPort");
        assertEquals(8091, of(Map.of("listenPort", "10921")).broker().grpcServerPort(), "a slave beside its master");
        assertEquals(8081, of(Map.of("listenPort", "2000")).broker().grpcServerPort());
        assertEquals(0, of(Map.of("listenPort", "0")).broker().grpcServerPort());
        assertEquals(9000, of(Map.of("listenPort", "10921", "grpcServerPort", "9000")).broker().grpcServerPort());
    }

    @Test
    void freePortsMayRepeat() throws Exception {
        BrokerConfiguration config = of(Map.of("listenPort", "0", "metricsPort", "0"));
        assertEquals(0, config.ha().haListenPort(), "listenPort 0 asks for a free HA port too");
    }

    @Test
    void messageMustFitInACommitLogFile() {
    }

    @Test
    void consumeQueueFileSizeIsRoundedUpToWholeEntries() throws Exception {
        BrokerConfiguration config = of(Map.of("mappedFileSizeConsumeQueue", "1000001"));
        assertEquals(1000020, config.store().mappedFileSizeConsumeQueue());
        assertTrue(config.warnings().get(0).contains("rounded up to 1000020"));
    }

    @Test
    void transientStorePoolOnlyTakesEffectOnAnAsyncFlushMaster() throws Exception {
        assertTrue(of(Map.of("transientStorePoolEnable", "true")).store().transientStorePoolEnable());
        BrokerConfiguration syncFlush = of(Map.of("transientStorePoolEnable", "true", "flushDiskType", "SYNC_FLUSH"));
        assertFalse(syncFlush.store().transientStorePoolEnable());
        assertTrue(syncFlush.warnings().get(0).contains("transientStorePoolEnable=true has no effect"));
    }

    @Test
    void missingFileIsAProblemNotACrash() {
        ConfigException e = assertThrows(ConfigException.class,
            () -> BrokerConfiguration.load(dir.resolve("nope.conf"), Map.of(), TestEnvironment.in(dir)));
        assertOneProblemContaining(e.problems(), "nope.conf: no such file");
    }

    @Test
    void malformedUnicodeEscapeInTheFileIsAProblem() {
        ConfigException e = assertThrows(ConfigException.class, () -> load("brokerName=\\uZZZZ\n", Map.of()));
        assertOneProblemContaining(e.problems(), "cannot be read");
    }

    @Test
    void secretsAreNeverPrintedNorQuotedInAnError() throws Exception {
        String print = load("initAuthenticationUser={\"username\":\"rocketmq\",\"password\":\"s3cret-pass\"}\n"
            + "metricsAuthToken=a-token-of-sixteen+\n", Map.of()).effectiveConfiguration();
        assertTrue(!print.contains("s3cret-pass") && !print.contains("a-token-of-sixteen+"), print);
        assertTrue(print.lines().anyMatch(line -> line.matches("  initAuthenticationUser +\\Q= <hidden>  (file)\\E")), print);
        ConfigException e = assertThrows(ConfigException.class, () -> load("metricsAuthToken=short-secret\n", Map.of()));
        assertOneProblemContaining(e.problems(), "metricsAuthToken=<hidden> has fewer than 16 characters");
        assertTrue(e.problems().stream().noneMatch(p -> p.contains("short-secret")), e.problems().toString());
    }

    @Test
    void effectiveConfigurationListsEveryKeyWithItsValueAndSource() throws Exception {
        BrokerConfiguration config = load("brokerName=b1\nenableCalcFilterBitMap=true\n", Map.of("listenPort", "10921"));
        String print = config.effectiveConfiguration();
        for (ConfigKey<?> key : ConfigKeys.TABLE.keys()) {
            assertTrue(print.lines().anyMatch(line -> line.matches("  " + key.name() + " +=.*")), key.name());
        }
        assertEquals(1 + 4 + ConfigKeys.TABLE.keys().size() + 2, print.lines().count(), print);
        assertTrue(print.contains("1 override"), print);
        assertTrue(print.lines().anyMatch(line -> line.matches("  brokerName +\\Q= b1  (file)\\E")), print);
        assertTrue(print.lines().anyMatch(line -> line.matches("  listenPort +\\Q= 10921  (command line)\\E")), print);
        assertTrue(print.lines().anyMatch(line -> line.matches("  haListenPort +\\Q= 10922  (default)\\E")), print);
        assertTrue(print.lines().anyMatch(line -> line.matches("  namesrvAddr +\\Q= <none>  (default)\\E")), print);
        assertTrue(print.lines().anyMatch(line -> line.matches("  storePathRootDir += " + java.util.regex.Pattern.quote(
            dir.resolve("home/store").toString()) + "  \\(default\\)")), print);
        assertTrue(print.contains("[ignored RocketMQ keys]\n  enableCalcFilterBitMap".replace("\n", System.lineSeparator())), print);
        for (String section : List.of("[broker]", "[store]", "[ha]")) {
            assertTrue(print.contains(section), section);
        }
    }

    @Test
    void effectiveValuesReadBackGiveTheSameConfiguration() throws Exception {
        BrokerConfiguration config = of(Map.of("deleteWhen", "4;16", "namesrvAddr", "a:1;b:2", "listenPort", "20000"));
        BrokerConfiguration again = of(config.asProperties());
        assertEquals(config.asProperties(), again.asProperties());
        assertEquals(ConfigKeys.TABLE.keys().size(), config.asProperties().size());
    }

    @Test
    void controllerModeReplicationKeysStopAClassicBroker() throws Exception {
        for (Map.Entry<String, String> setting : Map.of("allAckInSyncStateSet", "true", "inSyncReplicas", "2",
            "minInSyncReplicas", "2", "asyncLearner", "true").entrySet()) {
            Map<String, String> properties = Map.of("storePathRootDir", dir.toString(), setting.getKey(), setting.getValue());
            assertOneProblemContaining(problemsOf(properties), setting.getKey() + "=" + setting.getValue(),
                "honoured only with enableControllerMode=true");
        }
        // RocketMQ's defaults describe a classic broker too, and haMaxTimeSlaveNotCatchup changes no guarantee
        BrokerConfiguration config = of(Map.of("storePathRootDir", dir.toString(), "inSyncReplicas", "1",
            "allAckInSyncStateSet", "false", "haMaxTimeSlaveNotCatchup", "20000"));
        assertEquals(1, config.ha().inSyncReplicas());
        assertEquals(20000, config.ha().haMaxTimeSlaveNotCatchupMs());
    }
}
