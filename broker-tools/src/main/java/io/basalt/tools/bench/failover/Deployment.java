package io.basalt.tools.bench.failover;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The deployment under test, every part in a JVM of its own on 127.0.0.1: RocketMQ 5.2.0's NameServer
 * ({@code NamesrvStartup}), RocketMQ 5.2.0's Controller ({@code ControllerStartup}, one node or a DLedger group of
 * three) and the brokers of one broker set {@code broker-a} in controller mode, either RocketMQ 5.2.0's
 * {@code BrokerStartup} or Basalt's {@code bin/mqbroker}, from the same broker.conf keys: {@code brokerId=-1},
 * {@code brokerRole=SLAVE} (the Controller assigns both), {@code allAckInSyncStateSet=true}, {@code SYNC_FLUSH}.
 * Each part has its directory under the run directory (configuration, store, home with the logs, standard output).
 * {@link #close()} kills whatever still runs.
 */
final class Deployment implements AutoCloseable {
    enum Flavour { ROCKETMQ, BASALT }

    static final String CLUSTER = "DefaultCluster";
    static final String BROKER_NAME = "broker-a";
    /** The NameServer's and each Controller node's JVM: small, a serial collector (2 cores shared by everything). */
    private static final List<String> SMALL_JVM = List.of("-Xms256m", "-Xmx256m", "-XX:+UseSerialGC",
        "-XX:MaxDirectMemorySize=256m");

    private final Flavour flavour;
    private final Path runDir;
    private final String rocketMqClassPath;
    private final Path basaltHome;
    private final int basePort;
    private final int controllerNodes;
    private final long heartbeatTimeoutMs;
    private final long scanMs;
    private final String heap;
    private final long commitLogFileSize;
    private final List<String> extraConf;
    private final PrintWriter out;
    private final List<Part> parts = new ArrayList<>();
    private final List<Broker> brokers = new ArrayList<>();
    private final Thread hook = new Thread(this::killAll, "failoverbench-kill-on-exit");

    Deployment(Flavour flavour, Path runDir, String rocketMqClassPath, Path basaltHome, int basePort, int controllerNodes,
               long heartbeatTimeoutMs, long scanMs, String heap, long commitLogFileSize, List<String> extraConf,
               PrintWriter out) throws IOException {
        this.flavour = flavour;
        this.runDir = runDir.toAbsolutePath();
        this.rocketMqClassPath = rocketMqClassPath;
        this.basaltHome = basaltHome.toAbsolutePath().normalize();
        this.basePort = basePort;
        this.controllerNodes = controllerNodes;
        this.heartbeatTimeoutMs = heartbeatTimeoutMs;
        this.scanMs = scanMs;
        this.heap = heap;
        this.commitLogFileSize = commitLogFileSize;
        this.extraConf = List.copyOf(extraConf);
        this.out = out;
        Files.createDirectories(this.runDir);
        try (var list = Files.list(this.runDir)) {
            if (list.findAny().isPresent()) {
                throw new IOException("run directory " + this.runDir + " is not empty");
            }
        }
        Runtime.getRuntime().addShutdownHook(hook);
    }

    String namesrv() {
        return "127.0.0.1:" + basePort;
    }

    /** The broker key controllerAddr: every Controller node's DLedger peer address. */
    String controllerAddr() {
        List<String> addrs = new ArrayList<>();
        for (int i = 0; i < controllerNodes; i++) {
            addrs.add("127.0.0.1:" + (basePort + 10 + i));
        }
        return String.join(";", addrs);
    }

    List<String> controllerAddrs() {
        return List.of(controllerAddr().split(";"));
    }

    /** Starts the NameServer and every Controller node, and waits until their ports answer. */
    void startNameServerAndController() throws IOException, InterruptedException {
        Path ns = Files.createDirectories(runDir.resolve("namesrv"));
        Path nsConf = ns.resolve("namesrv.conf");
        Files.writeString(nsConf, "listenPort=" + basePort + "\nbindAddress=127.0.0.1\n");
        Part nameServer = new Part("namesrv", ns, basePort, rocketMqCommand(ns, SMALL_JVM, "rmq.namesrv.logback.xml",
            "rocketmq-namesrv", "org.apache.rocketmq.namesrv.NamesrvStartup", nsConf));
        parts.add(nameServer);
        nameServer.launch();

        String peers = "";
        for (int i = 0; i < controllerNodes; i++) {
            peers += (i == 0 ? "" : ";") + "n" + i + "-127.0.0.1:" + (basePort + 10 + i);
        }
        List<Part> nodes = new ArrayList<>();
        for (int i = 0; i < controllerNodes; i++) {
            Path dir = Files.createDirectories(runDir.resolve("controller-n" + i));
            Map<String, String> conf = new LinkedHashMap<>();
            conf.put("controllerType", "DLedger");
            conf.put("controllerDLegerGroup", "bench");
            conf.put("controllerDLegerPeers", peers);
            conf.put("controllerDLegerSelfId", "n" + i);
            conf.put("controllerStorePath", dir.resolve("store").toString());
            conf.put("configStorePath", dir.resolve("controller.properties").toString());
            conf.put("mappedFileSize", Integer.toString(16 * 1024 * 1024));
            conf.put("scanNotActiveBrokerInterval", Long.toString(scanMs));
            conf.put("scanInactiveMasterInterval", Long.toString(scanMs));
            conf.put("notifyBrokerRoleChanged", "true");
            conf.put("enableElectUncleanMaster", "false");
            Path confFile = writeConf(dir.resolve("controller.conf"), conf);
            Part node = new Part("controller-n" + i, dir, basePort + 10 + i, rocketMqCommand(dir, SMALL_JVM,
                "rmq.controller.logback.xml", "rocketmq-controller", "org.apache.rocketmq.controller.ControllerStartup", confFile));
            parts.add(node);
            nodes.add(node);
            node.launch();
        }
        nameServer.awaitPort(60);
        for (Part node : nodes) {
            node.awaitPort(60);
        }
    }

    /** Configures broker {@code index} (0, 1, 2): listenPort basePort + 100 + 10 × index. Not started. */
    Broker addBroker(int index) throws IOException {
        int port = basePort + 100 + 10 * index;
        Path dir = Files.createDirectories(runDir.resolve("broker-" + index));
        Path store = dir.resolve("store");
        Map<String, String> conf = new LinkedHashMap<>();
        conf.put("brokerClusterName", CLUSTER);
        conf.put("brokerName", BROKER_NAME);
        conf.put("brokerId", "-1");
        conf.put("brokerRole", "SLAVE");
        conf.put("enableControllerMode", "true");
        conf.put("controllerAddr", controllerAddr());
        conf.put("namesrvAddr", namesrv());
        conf.put("allAckInSyncStateSet", "true");
        conf.put("flushDiskType", "SYNC_FLUSH");
        conf.put("controllerHeartBeatTimeoutMills", Long.toString(heartbeatTimeoutMs));
        conf.put("listenPort", Integer.toString(port));
        conf.put("haListenPort", Integer.toString(port + 1));
        // brokers of one host cannot share the default gRPC port 8081
        conf.put("grpcServerPort", "0");
        conf.put("bindAddress", "127.0.0.1");
        conf.put("brokerIP1", "127.0.0.1");
        conf.put("brokerIP2", "127.0.0.1");
        conf.put("storePathRootDir", store.toString());
        conf.put("storePathCommitLog", store.resolve("commitlog").toString());
        conf.put("mappedFileSizeCommitLog", Long.toString(commitLogFileSize));
        conf.put("autoCreateTopicEnable", "true");
        conf.put("deleteWhen", "04");
        conf.put("fileReservedTime", "48");
        for (String line : extraConf) {
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--extra-conf wants key=value, not " + line);
            }
            conf.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
        }
        Path confFile = writeConf(dir.resolve("broker.conf"), conf);
        List<String> cmd;
        Map<String, String> env = new LinkedHashMap<>();
        if (flavour == Flavour.ROCKETMQ) {
            cmd = rocketMqCommand(dir, List.of("-server", "-Xms" + heap, "-Xmx" + heap, "-XX:+UseG1GC",
                "-XX:MaxDirectMemorySize=2g"), "rmq.broker.logback.xml", "rocketmq-broker",
                "org.apache.rocketmq.broker.BrokerStartup", confFile);
        } else {
            cmd = List.of(basaltHome.resolve("bin/mqbroker").toString(), "start", "-c", confFile.toString());
            env.put("JAVA_OPT", "-Xms" + heap + " -Xmx" + heap);
            env.put("BASALT_LOG_DIR", dir.resolve("logs").toString());
        }
        Broker broker = new Broker(index, "127.0.0.1:" + port, new Part("broker-" + index, dir, port, cmd, env));
        parts.add(broker.part);
        brokers.add(broker);
        return broker;
    }

    List<Broker> brokers() {
        return List.copyOf(brokers);
    }

    Broker brokerAt(String address) {
        for (Broker b : brokers) {
            if (b.address.equals(address)) {
                return b;
            }
        }
        throw new IllegalStateException("no broker of this deployment listens on " + address);
    }

    /** {@code java <jvmOptions> <RocketMQ's JVM options as its scripts give them> -cp <RocketMQ> mainClass -c conf}. */
    private List<String> rocketMqCommand(Path dir, List<String> jvmOptions, String logbackXml, String jarName,
                                         String mainClass, Path confFile) {
        Path home = dir.resolve("home");
        List<String> cmd = new ArrayList<>(List.of(java()));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-XX:-OmitStackTraceInFastThrow",
            "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-opens", "java.base/java.nio=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens", "java.base/java.lang=ALL-UNNAMED",
            "-Duser.home=" + home, "-Drocketmq.home.dir=" + home,
            "-Drmq.logback.configurationFile=jar:file:" + jarOf(jarName) + "!/" + logbackXml,
            "-cp", rocketMqClassPath, mainClass, "-c", confFile.toString()));
        return cmd;
    }

    private String jarOf(String artifact) {
        for (String entry : rocketMqClassPath.split(File.pathSeparator)) {
            String name = Path.of(entry).getFileName().toString();
            if (name.startsWith(artifact + "-5.") && name.endsWith(".jar")) {
                return entry;
            }
        }
        throw new IllegalArgumentException("--rocketmq-cp has no " + artifact + " jar");
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static Path writeConf(Path file, Map<String, String> conf) throws IOException {
        Files.writeString(file, conf.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining("\n", "", "\n")));
        return file;
    }

    private void killAll() {
        for (Part p : parts) {
            p.kill();
        }
    }

    @Override
    public void close() {
        killAll();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }

    /** One broker of the set: its remoting address and process. */
    final class Broker {
        final int index;
        final String address;
        final Part part;

        Broker(int index, String address, Part part) {
            this.index = index;
            this.address = address;
            this.part = part;
        }

        /** Starts the broker (again, on its store) and waits until its remoting port answers. */
        void start() throws IOException, InterruptedException {
            part.launch();
            part.awaitPort(120);
        }

        /** {@code kill -9}: SIGKILL to the broker's JVM, then waits until it is gone. */
        void kill() {
            part.kill();
        }

        boolean alive() {
            return part.alive();
        }

        /** SIGSTOP: the JVM stops answering but its sockets stay open, as a hung or cut-off host's would. */
        void freeze() throws IOException, InterruptedException {
            Process p = new ProcessBuilder("kill", "-STOP", Long.toString(part.process.pid())).inheritIO().start();
            if (p.waitFor() != 0) {
                throw new IOException("kill -STOP " + part.process.pid() + " failed");
            }
        }

        @Override
        public String toString() {
            return "broker-" + index + "@" + address;
        }
    }

    /** One JVM of the deployment. */
    final class Part {
        final String name;
        final Path dir;
        final int port;
        final List<String> command;
        final Map<String, String> env;
        Process process;

        Part(String name, Path dir, int port, List<String> command) {
            this(name, dir, port, command, Map.of());
        }

        Part(String name, Path dir, int port, List<String> command, Map<String, String> env) {
            this.name = name;
            this.dir = dir;
            this.port = port;
            this.command = List.copyOf(command);
            this.env = Map.copyOf(env);
        }

        void launch() throws IOException {
            if (alive()) {
                throw new IllegalStateException(name + " still runs");
            }
            Path home = Files.createDirectories(dir.resolve("home"));
            Files.createDirectories(home.resolve("conf"));
            ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("out.log").toFile()));
            pb.environment().put("ROCKETMQ_HOME", home.toString());
            pb.environment().putAll(env);
            process = pb.start();
        }

        boolean alive() {
            return process != null && process.isAlive();
        }

        void awaitPort(int seconds) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (System.nanoTime() < deadline) {
                if (!alive()) {
                    throw new IOException(name + " exited with " + process.exitValue() + " during start-up; see "
                        + dir.resolve("out.log"));
                }
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                    return;
                } catch (IOException notYet) {
                    Thread.sleep(100);
                }
            }
            throw new IOException(name + " did not open port " + port + " within " + seconds + " s; see " + dir.resolve("out.log"));
        }

        /** SIGKILL (Process.destroyForcibly on Linux), the whole process tree, and waits for the exit. */
        void kill() {
            Process p = process;
            if (p == null) {
                return;
            }
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            try {
                p.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
