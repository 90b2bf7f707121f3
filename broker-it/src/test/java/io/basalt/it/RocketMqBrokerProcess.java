package io.basalt.it;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The real Apache RocketMQ 5.2.0 broker ({@code org.apache.rocketmq.broker.BrokerStartup} from the released
 * jars of this module's test classpath) in its own JVM, the way the RocketMQ distribution's {@code mqbroker}
 * starts it: a master registering with a NameServer, bound to 127.0.0.1 on free ports, its store wherever the
 * test says, so a test can hand one store directory back and forth between it and a Basalt broker.
 *
 * <p>{@link #stopGracefully()} sends SIGTERM: RocketMQ's shutdown hook then shuts the controller down (the
 * schedule service persists {@code delayOffset.json}, the timer store flushes its log, wheel and checkpoint).
 * {@link #close()} kills the process if it still runs, so no RocketMQ JVM outlives a failed test. Its logs go
 * to {@code <dir>/home/logs/rocketmqlogs}, its standard output to {@code <dir>/rocketmq-broker.out}.
 */
public final class RocketMqBrokerProcess implements AutoCloseable {
    /** What BrokerStartup prints once the broker is registered and serving. */
    private static final String BOOTED = "boot success";

    private final Path dir;
    private final Path confFile;
    private final Path out;
    private final int port;
    private final int haListenPort;
    private final Path storeDir;
    private Process process;

    private RocketMqBrokerProcess(Path dir, Path storeDir, String namesrvAddr, Map<String, String> extra) throws IOException {
        this.dir = Files.createDirectories(dir);
        this.port = BrokerProcess.freeListenPort();
        this.confFile = dir.resolve("rocketmq-broker.conf");
        this.out = dir.resolve("rocketmq-broker.out");
        Files.createDirectories(dir.resolve("home/conf"));
        Map<String, String> conf = new LinkedHashMap<>();
        conf.put("brokerClusterName", "DefaultCluster");
        conf.put("brokerName", "broker-a");
        conf.put("brokerId", "0");
        conf.put("brokerRole", "ASYNC_MASTER");
        conf.put("namesrvAddr", namesrvAddr);
        conf.put("listenPort", Integer.toString(port));
        conf.put("haListenPort", Integer.toString(BrokerProcess.freePort()));
        conf.put("bindAddress", "127.0.0.1");
        conf.put("brokerIP1", "127.0.0.1");
        conf.put("brokerIP2", "127.0.0.1");
        conf.put("storePathRootDir", storeDir.toString());
        conf.put("storePathCommitLog", storeDir.resolve("commitlog").toString());
        // the file sizes of BrokerProcess's broker.conf: one store, both brokers
        conf.put("mappedFileSizeCommitLog", Integer.toString(4 * 1024 * 1024));
        conf.put("mappedFileSizeConsumeQueue", Integer.toString(300_000));
        conf.put("maxMessageSize", Integer.toString(1024 * 1024));
        conf.put("maxHashSlotNum", "10000");
        conf.put("maxIndexNum", "40000");
        conf.put("flushDiskType", "ASYNC_FLUSH");
        conf.put("autoCreateTopicEnable", "true");
        conf.put("defaultTopicQueueNums", "4");
        conf.put("flushConsumerOffsetInterval", "1000");
        conf.put("deleteWhen", "04");
        conf.put("fileReservedTime", "48");
        conf.putAll(extra);
        this.haListenPort = Integer.parseInt(conf.get("haListenPort"));
        this.storeDir = storeDir;
        Files.writeString(confFile, conf.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining("\n", "", "\n")));
    }

    /**
     * A RocketMQ broker whose files live in {@code dir}, keeping its store in {@code storeDir}, registering
     * with {@code namesrvAddr}; {@code extra} adds or overrides broker.conf keys. Not started.
     */
    public static RocketMqBrokerProcess create(Path dir, Path storeDir, String namesrvAddr, Map<String, String> extra)
        throws IOException {
        return new RocketMqBrokerProcess(dir, storeDir, namesrvAddr, extra);
    }

    /**
     * A RocketMQ SYNC_MASTER of broker-a keeping its store in {@code dir/store}: with {@code totalReplicas=2
     * inSyncReplicas=2}, without which 5.2.0 acknowledges a SYNC_MASTER's send without waiting for any slave.
     */
    public static RocketMqBrokerProcess syncMaster(Path dir, String namesrvAddr, Map<String, String> extra)
        throws IOException {
        Map<String, String> conf = new LinkedHashMap<>();
        conf.put("brokerRole", "SYNC_MASTER");
        conf.put("totalReplicas", "2");
        conf.put("inSyncReplicas", "2");
        conf.putAll(extra);
        return new RocketMqBrokerProcess(dir, dir.resolve("store"), namesrvAddr, conf);
    }

    /**
     * A RocketMQ SLAVE of broker-a with {@code brokerId}, keeping its store in {@code dir/store}; without
     * haMasterAddress in {@code extra} it replicates from the HA address its NameServer registration returns.
     */
    public static RocketMqBrokerProcess slave(Path dir, String namesrvAddr, long brokerId, Map<String, String> extra)
        throws IOException {
        Map<String, String> conf = new LinkedHashMap<>();
        conf.put("brokerRole", "SLAVE");
        conf.put("brokerId", Long.toString(brokerId));
        conf.put("totalReplicas", "2");
        conf.putAll(extra);
        return new RocketMqBrokerProcess(dir, dir.resolve("store"), namesrvAddr, conf);
    }

    /** The port its HA service listens on (a master's slaves connect there). */
    public int haListenPort() {
        return haListenPort;
    }

    /** Where it keeps its store. */
    public Path storeDir() {
        return storeDir;
    }

    /** {@code 127.0.0.1:port}. */
    public String address() {
        return "127.0.0.1:" + port;
    }

    /** Starts the broker and waits until it printed that it booted (registered with the NameServer). */
    public void start() throws IOException {
        Path home = dir.resolve("home");
        String jvm = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(jvm, "-Xms192m", "-Xmx384m", "-XX:MaxDirectMemorySize=256m",
            "-XX:+UseSerialGC", "-XX:-OmitStackTraceInFastThrow",
            "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED", "--add-opens", "java.base/java.nio=ALL-UNNAMED",
            "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens", "java.base/java.lang=ALL-UNNAMED",
            "-Duser.home=" + home, "-Drocketmq.home.dir=" + home,
            "-cp", rocketMqClassPath(), "org.apache.rocketmq.broker.BrokerStartup", "-c", confFile.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()));
        pb.environment().put("ROCKETMQ_HOME", home.toString());
        int bootsBefore = count(output(), BOOTED);
        process = pb.start();
        await().atMost(Duration.ofSeconds(50)).pollInterval(Duration.ofMillis(200)).until(() -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("the RocketMQ broker exited with " + process.exitValue() + ": " + output());
            }
            return count(output(), BOOTED) > bootsBefore && BrokerProcess.answers(port);
        });
    }

    /**
     * This JVM's test classpath without Basalt's own modules and the 5.x gRPC SDK: the released RocketMQ 5.2.0 jars
     * and what they depend on, as Maven resolved them for this module.
     */
    private static String rocketMqClassPath() {
        return List.of(System.getProperty("java.class.path").split(File.pathSeparator)).stream()
            .filter(entry -> !entry.contains(File.separator + "target" + File.separator))
            .filter(entry -> !entry.contains(File.separator + "io" + File.separator + "basalt" + File.separator))
            // the 5.x gRPC SDK's copies of the apache.rocketmq.v2 classes would shadow the broker's rocketmq-proto
            .filter(entry -> !entry.contains("rocketmq-client-java"))
            .collect(Collectors.joining(File.pathSeparator));
    }

    /** SIGTERM (RocketMQ's shutdown hook persists and flushes everything), then waits for the exit. */
    public int stopGracefully() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the RocketMQ broker did not stop within 60 s of SIGTERM");
        }
        return process.exitValue();
    }

    /** kill -9: the process dies at once, without its shutdown hook; waits for the exit. */
    public void killHard() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the RocketMQ broker did not die within 30 s of SIGKILL");
        }
    }

    /** The broker's standard output and error, every start appended. */
    public String output() throws IOException {
        return Files.exists(out) ? Files.readString(out) : "";
    }

    /** The broker's own log (home/logs/rocketmqlogs/broker.log), or "" before it wrote one. */
    public String brokerLog() throws IOException {
        Path log = dir.resolve("home/logs/rocketmqlogs/broker.log");
        return Files.exists(log) ? Files.readString(log) : "";
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            n++;
        }
        return n;
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
