package io.basalt.it;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A Basalt broker in its own JVM (the official client's Netty 4.1 and fastjson stay out of it),
 * started from broker-server's packaged jar and target/lib exactly as bin/mqbroker does, with a store
 * under a test directory, small mapped files and free ports (remoting, HA, metrics, gRPC). {@link #close()} kills it (and anything it
 * started) if it is still alive, so no process outlives a failed test.
 */
public final class BrokerProcess implements AutoCloseable {
    public static final Path BASALT_HOME = Path.of(System.getProperty("basalt.home", "..")).toAbsolutePath().normalize();

    private final Path dir;
    private final Path confFile;
    private final int port;
    private Process process;

    private final int metricsPort;
    private final int grpcPort;
    private final String brokerName;
    /** RLIMIT_NOFILE of the broker JVM (through prlimit), or 0 for the test JVM's own. */
    private volatile int openFileLimit;
    /** JVM options added to the broker's command line by every later {@link #start()}. */
    private final List<String> jvmOptions = new ArrayList<>();
    /** Where the broker's console output ({@code broker.out}) and its logs go; {@link #dir} unless moved. */
    private volatile Path outputDir;

    private BrokerProcess(Path dir, int port, Map<String, String> extra) throws IOException {
        this.dir = dir;
        this.outputDir = dir;
        this.port = port;
        this.confFile = dir.resolve("broker.conf");
        Files.createDirectories(dir);
        Map<String, String> conf = new LinkedHashMap<>();
        conf.put("brokerClusterName", "DefaultCluster");
        conf.put("brokerName", "broker-a");
        conf.put("brokerId", "0");
        conf.put("brokerRole", "ASYNC_MASTER");
        conf.put("listenPort", Integer.toString(port));
        // Free ports for HA and metrics too: listenPort + 1 and 5557 may be taken on a shared machine.
        conf.put("haListenPort", Integer.toString(freePort()));
        conf.put("metricsPort", Integer.toString(freePort()));
        // and for the gRPC endpoint: every broker of the host needs its own (the default 8081 would clash)
        conf.put("grpcServerPort", Integer.toString(freePort()));
        conf.put("brokerIP1", "127.0.0.1");
        conf.put("storePathRootDir", dir.resolve("store").toString());
        conf.put("storePathCommitLog", dir.resolve("store/commitlog").toString());
        conf.put("mappedFileSizeCommitLog", Integer.toString(4 * 1024 * 1024));
        conf.put("mappedFileSizeConsumeQueue", Integer.toString(300_000));
        conf.put("maxMessageSize", Integer.toString(1024 * 1024));
        conf.put("flushDiskType", "ASYNC_FLUSH");
        conf.put("autoCreateTopicEnable", "true");
        conf.put("defaultTopicQueueNums", "4");
        conf.put("flushConsumerOffsetInterval", "1000");
        conf.put("maxHashSlotNum", "10000");
        conf.put("maxIndexNum", "40000");
        conf.putAll(extra);
        this.metricsPort = Integer.parseInt(conf.get("metricsPort"));
        this.grpcPort = Integer.parseInt(conf.get("grpcServerPort"));
        this.brokerName = conf.get("brokerName");
        Files.writeString(confFile, conf.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining("\n", "", "\n")));
    }

    /** A broker configuration in {@code dir} on a free port; not started. */
    public static BrokerProcess create(Path dir, Map<String, String> extra) throws IOException {
        return new BrokerProcess(dir, freeListenPort(), extra);
    }

    public static BrokerProcess start(Path dir) throws IOException {
        BrokerProcess b = create(dir, Map.of());
        b.start();
        return b;
    }

    /**
     * Ports this JVM has handed out: the kernel may give a just-closed ephemeral port again at once, and a
     * broker's listen, fast, HA and metrics ports must differ.
     */
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    /** A free port whose fast port (port - 2, RocketMQ's VIP channel, which the broker also binds) is free too. */
    public static int freeListenPort() throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            try (ServerSocket listen = new ServerSocket(0)) {
                listen.setReuseAddress(true);
                int port = listen.getLocalPort();
                if (port < 2 || HANDED_OUT.contains(port) || HANDED_OUT.contains(port - 2)) {
                    continue;
                }
                try (ServerSocket fast = new ServerSocket(port - 2)) {
                    fast.setReuseAddress(true);
                } catch (IOException taken) {
                    continue;
                }
                HANDED_OUT.add(port);
                HANDED_OUT.add(port - 2);
                return port;
            }
        }
        throw new IOException("found no free port whose port - 2 is free too");
    }

    /** A free port no earlier call of this JVM has handed out. */
    public static int freePort() throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            try (ServerSocket s = new ServerSocket(0)) {
                s.setReuseAddress(true);
                int port = s.getLocalPort();
                if (HANDED_OUT.add(port)) {
                    return port;
                }
            }
        }
        throw new IOException("found no free port not handed out before");
    }

    public Path dir() {
        return dir;
    }

    Path confFile() {
        return confFile;
    }

    public Path storeDir() {
        return dir.resolve("store");
    }

    public int port() {
        return port;
    }

    public String brokerName() {
        return brokerName;
    }

    /** The port of the broker's Prometheus endpoint and status page. */
    public int metricsPort() {
        return metricsPort;
    }

    /** The port of the broker's gRPC endpoint (RocketMQ 5.x SDKs); -1 when the test turned it off. */
    public int grpcPort() {
        return grpcPort;
    }

    /** What a RocketMQ 5.x SDK client puts in its endpoints: the broker's gRPC endpoint. */
    public String grpcAddress() {
        return "127.0.0.1:" + grpcPort;
    }

    /** The process id of the running broker. */
    public long pid() {
        return process.pid();
    }

    /** Sends {@code signal} (e.g. "INT", "TERM") and waits for the exit; returns the exit status. */
    public int signalAndWait(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + signal + " failed");
        }
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("broker did not stop within 60 s of SIG" + signal);
        }
        return process.exitValue();
    }

    /** What a client puts in namesrvAddr: the broker answers route queries itself. */
    public String address() {
        return "127.0.0.1:" + port;
    }

    /** The java command bin/mqbroker would run, with a small heap. */
    static List<String> javaCommand(String... args) {
        Path target = BASALT_HOME.resolve("broker-server/target");
        Path jar;
        try (Stream<Path> files = Files.list(target)) {
            jar = files.filter(p -> p.getFileName().toString().matches("broker-server-.*\\.jar"))
                .filter(p -> !p.getFileName().toString().contains("-sources") && !p.getFileName().toString().contains("-tests"))
                .findFirst().orElseThrow(() -> new IllegalStateException("no broker-server jar in " + target
                    + ": run mvn -pl broker-server -am package -DskipTests first"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        // Tests keep the broker small; the benchmark passes bin/mqbroker's defaults through basalt.broker.jvm.
        cmd.addAll(List.of(System.getProperty("basalt.broker.jvm",
            "-Xms128m -Xmx256m -XX:MaxDirectMemorySize=256m -XX:+UseSerialGC").trim().split("\\s+")));
        cmd.addAll(List.of("-Dlogback.configurationFile=" + BASALT_HOME.resolve("conf/logback.xml"),
            "-cp", jar + File.pathSeparator + target.resolve("lib") + File.separator + "*",
            "io.basalt.broker.BrokerStartup"));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /**
     * The broker JVM of every later {@link #start()} runs with at most {@code limit} open files (soft and hard,
     * set by {@code prlimit}, which then execs the JVM: {@link #pid()} stays the broker's).
     */
    public BrokerProcess withOpenFileLimit(int limit) {
        this.openFileLimit = limit;
        return this;
    }

    /** The broker JVM of every later {@link #start()} also gets these options (e.g. a system property). */
    public BrokerProcess withJvmOptions(String... options) {
        jvmOptions.addAll(List.of(options));
        return this;
    }

    /**
     * The broker's console output and logs of every later {@link #start()} go to {@code outputDir}: a test
     * that fills the store's disk keeps them, and with them the reason a start failed.
     */
    public BrokerProcess withOutputDir(Path outputDir) {
        this.outputDir = outputDir;
        return this;
    }

    /** Starts the broker and waits until its port answers. */
    public void start() throws IOException {
        List<String> command = new ArrayList<>();
        if (openFileLimit > 0) {
            command.addAll(List.of("prlimit", "--nofile=" + openFileLimit + ":" + openFileLimit, "--"));
        }
        List<String> java = javaCommand("start", "-c", confFile.toString());
        java.addAll(1, jvmOptions);
        command.addAll(java);
        ProcessBuilder pb = new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(outputDir.resolve("broker.out").toFile()));
        pb.environment().put("BASALT_LOG_DIR", outputDir.resolve("logs").toString());
        process = pb.start();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("broker exited with " + process.exitValue() + ": " + output());
            }
            return answers(port);
        });
    }

    static boolean answers(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public String output() throws IOException {
        Path out = outputDir.resolve("broker.out");
        return Files.exists(out) ? Files.readString(out) : "";
    }

    /** SIGTERM, then waits for a clean exit; returns the exit status. */
    public int stopGracefully() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("broker did not stop within 60 s");
        }
        return process.exitValue();
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** kill -9: the process dies at once, without its shutdown hook. */
    public void killHard() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("broker did not die within 30 s");
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
