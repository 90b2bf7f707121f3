package io.basalt.it.controller;

import static org.awaitility.Awaitility.await;

import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.basalt.it.BrokerProcess;

import org.apache.rocketmq.remoting.protocol.RemotingCommand;

/**
 * The official Apache RocketMQ 5.2.0 Controller ({@code org.apache.rocketmq.controller.ControllerStartup} of
 * {@code rocketmq-controller}, from this module's test classpath) in JVMs of its own, as {@code bin/mqcontroller
 * -c controller.conf} starts it: one node or a DLedger group of three, each bound to 127.0.0.1 on a free port.
 *
 * <p>Brokers talk to a node on its DLedger peer port ({@link #address(int)}; {@link #controllerAddr()} is the
 * {@code controllerAddr} broker key naming every node). Each node keeps its DLedger store in
 * {@code <dir>/n<i>/store}, its logs in {@code <dir>/n<i>/home/logs/rocketmqlogs} and its standard output in
 * {@code <dir>/n<i>/controller.out}. {@link #kill(int)} is {@code kill -9}, {@link #stop(int)} SIGTERM,
 * {@link #restart(int)} starts a node again on its port and store; {@link #close()} kills every node still
 * running, so no Controller JVM outlives a failed test.
 *
 * <p>The Controller's timings are keys of {@code controller.conf} ({@code extra}); {@link #FAST} shortens the
 * scans that find dead brokers and masters so tests do not wait out the 5 s defaults.
 */
public final class RocketMqControllerProcess implements AutoCloseable {
    /** RocketMQ's remoting code CONTROLLER_GET_METADATA_INFO. */
    private static final int GET_METADATA_INFO = 1005;
    /** controller.conf keys for quick failure detection: the dead-broker and inactive-master scans every 500 ms. */
    public static final Map<String, String> FAST = Map.of(
        "scanNotActiveBrokerInterval", "500",
        "scanInactiveMasterInterval", "500");

    private final Path dir;
    private final String group;
    private final List<Node> nodes;

    private RocketMqControllerProcess(Path dir, int size, Map<String, String> extra) throws IOException {
        this.dir = Files.createDirectories(dir);
        this.group = "group-" + dir.getFileName();
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            ports.add(BrokerProcess.freePort());
        }
        String peers = "";
        for (int i = 0; i < size; i++) {
            peers += (i == 0 ? "" : ";") + "n" + i + "-127.0.0.1:" + ports.get(i);
        }
        List<Node> list = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            list.add(new Node(dir.resolve("n" + i), "n" + i, ports.get(i), peers, extra));
        }
        this.nodes = List.copyOf(list);
    }

    /** A one-node Controller in {@code dir}, started and leading. {@code extra} adds or overrides controller.conf keys. */
    public static RocketMqControllerProcess startSingle(Path dir, Map<String, String> extra) throws IOException {
        return start(dir, 1, extra);
    }

    /** A three-node DLedger Controller group in {@code dir}, every node started, one of them leading. */
    public static RocketMqControllerProcess startCluster(Path dir, Map<String, String> extra) throws IOException {
        return start(dir, 3, extra);
    }

    private static RocketMqControllerProcess start(Path dir, int size, Map<String, String> extra) throws IOException {
        RocketMqControllerProcess controller = new RocketMqControllerProcess(dir, size, extra);
        try {
            for (Node node : controller.nodes) {
                node.launch();
            }
            for (int i = 0; i < size; i++) {
                controller.awaitLeaderSeenBy(i);
            }
        } catch (IOException | RuntimeException e) {
            controller.close();
            throw e;
        }
        return controller;
    }

    /** How many nodes the group has (1 or 3). */
    public int size() {
        return nodes.size();
    }

    /** Node {@code i}'s DLedger peer address {@code 127.0.0.1:port}: where brokers and admins talk to it. */
    public String address(int i) {
        return "127.0.0.1:" + nodes.get(i).port;
    }

    /** Every node's address, {@code ;}-separated: the broker key {@code controllerAddr}. */
    public String controllerAddr() {
        return nodes.stream().map(n -> "127.0.0.1:" + n.port).collect(Collectors.joining(";"));
    }

    /** The DLedger group name ({@code controllerDLegerGroup}). */
    public String group() {
        return group;
    }

    /** The pid of node {@code i}'s JVM (for signals such as SIGSTOP); the node must have been started. */
    public long pid(int i) {
        return nodes.get(i).process.pid();
    }

    /** Whether node {@code i}'s JVM is running. */
    public boolean isAlive(int i) {
        Process p = nodes.get(i).process;
        return p != null && p.isAlive();
    }

    /**
     * The index of the node that says it leads, asking the running nodes; empty while none does (an election is
     * under way) or none answers.
     */
    public Optional<Integer> leaderIndex() {
        for (int i = 0; i < nodes.size(); i++) {
            if (!isAlive(i)) {
                continue;
            }
            Map<String, String> meta = metadata(i);
            if (meta != null && "true".equals(meta.get("isLeader"))) {
                return Optional.of(i);
            }
        }
        return Optional.empty();
    }

    /** Waits (up to 60 s) until a running node leads, and returns its index. */
    public int awaitLeader() {
        return await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
            .until(this::leaderIndex, Optional::isPresent).orElseThrow();
    }

    /** Waits (up to 60 s) until node {@code i} answers GET_METADATA_INFO naming a leader. */
    public void awaitLeaderSeenBy(int i) {
        Node node = nodes.get(i);
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
            if (!node.process.isAlive()) {
                throw new IllegalStateException("controller node " + node.id + " exited with "
                    + node.process.exitValue() + ": " + output(i));
            }
            Map<String, String> meta = metadata(i);
            String leader = meta == null ? null : meta.get("controllerLeaderAddress");
            return leader != null && !leader.isEmpty();
        });
    }

    /**
     * Node {@code i}'s answer to CONTROLLER_GET_METADATA_INFO (the response's extFields: {@code group},
     * {@code controllerLeaderId}, {@code controllerLeaderAddress}, {@code isLeader}, {@code peers}), or null when
     * it does not answer within 2 s. Asked over one plain socket, encoded with RocketMQ's own RemotingCommand.
     */
    public Map<String, String> metadata(int i) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", nodes.get(i).port), 1000);
            socket.setSoTimeout(2000);
            ByteBuffer request = RemotingCommand.createRequestCommand(GET_METADATA_INFO, null).encode();
            OutputStream out = socket.getOutputStream();
            out.write(request.array(), request.arrayOffset() + request.position(), request.remaining());
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] frame = new byte[in.readInt()];
            in.readFully(frame);
            RemotingCommand response = RemotingCommand.decode(ByteBuffer.wrap(frame));
            if (response.getCode() != 0) {
                return null;
            }
            return response.getExtFields() == null ? Map.of() : Map.copyOf(response.getExtFields());
        } catch (Exception e) {
            return null;
        }
    }

    /** {@code kill -9} of node {@code i}: no shutdown hook, its store as the crash left it. */
    public void kill(int i) throws InterruptedException {
        Process p = nodes.get(i).process;
        if (p != null && p.isAlive()) {
            p.destroyForcibly();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("controller node n" + i + " did not die within 30 s of SIGKILL");
            }
        }
    }

    /** SIGTERM to node {@code i} (RocketMQ's shutdown hook stops the ControllerManager), then waits for the exit. */
    public int stop(int i) throws InterruptedException {
        Process p = nodes.get(i).process;
        p.destroy();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("controller node n" + i + " did not stop within 60 s of SIGTERM");
        }
        return p.exitValue();
    }

    /** Starts a stopped or killed node {@code i} again, on its port with its store, and waits until it sees a leader. */
    public void restart(int i) throws IOException {
        if (isAlive(i)) {
            throw new IllegalStateException("controller node n" + i + " still runs");
        }
        nodes.get(i).launch();
        awaitLeaderSeenBy(i);
    }

    /** Node {@code i}'s standard output and error, every start appended. */
    public String output(int i) throws IOException {
        Path out = nodes.get(i).out;
        return Files.exists(out) ? Files.readString(out) : "";
    }

    /** Node {@code i}'s own log ({@code home/logs/rocketmqlogs/controller.log}), or "" before it wrote one. */
    public String controllerLog(int i) throws IOException {
        Path log = nodes.get(i).dir.resolve("home/logs/rocketmqlogs/controller.log");
        return Files.exists(log) ? Files.readString(log) : "";
    }

    /** The directory of node {@code i} (its conf, store, home and output). */
    public Path nodeDir(int i) {
        return nodes.get(i).dir;
    }

    @Override
    public void close() {
        for (int i = 0; i < nodes.size(); i++) {
            try {
                kill(i);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** One Controller node: its conf file, port and process. */
    private final class Node {
        final Path dir;
        final String id;
        final int port;
        final Path confFile;
        final Path out;
        Process process;

        Node(Path dir, String id, int port, String peers, Map<String, String> extra) throws IOException {
            this.dir = Files.createDirectories(dir);
            this.id = id;
            this.port = port;
            this.confFile = dir.resolve("controller.conf");
            this.out = dir.resolve("controller.out");
            Files.createDirectories(dir.resolve("home/conf"));
            Map<String, String> conf = new LinkedHashMap<>();
            conf.put("controllerType", "DLedger");
            conf.put("controllerDLegerGroup", group);
            conf.put("controllerDLegerPeers", peers);
            conf.put("controllerDLegerSelfId", id);
            conf.put("controllerStorePath", dir.resolve("store").toString());
            conf.put("configStorePath", dir.resolve("controller.properties").toString());
            // DLedger maps its log files at this size: 1 GiB by default
            conf.put("mappedFileSize", Integer.toString(4 * 1024 * 1024));
            conf.put("enableElectUncleanMaster", "false");
            conf.put("notifyBrokerRoleChanged", "true");
            conf.putAll(extra);
            Files.writeString(confFile, conf.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining("\n", "", "\n")));
        }

        void launch() throws IOException {
            Path home = dir.resolve("home");
            String jvm = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            List<String> cmd = new ArrayList<>(List.of(jvm, "-Xms64m", "-Xmx192m", "-XX:MaxDirectMemorySize=128m",
                "-XX:+UseSerialGC", "-XX:-OmitStackTraceInFastThrow",
                "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
                "--add-opens", "java.base/java.nio=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens", "java.base/java.lang=ALL-UNNAMED",
                "-Duser.home=" + home, "-Drocketmq.home.dir=" + home,
                "-cp", rocketMqClassPath(), "org.apache.rocketmq.controller.ControllerStartup",
                "-c", confFile.toString()));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()));
            pb.environment().put("ROCKETMQ_HOME", home.toString());
            process = pb.start();
        }
    }

    /** This JVM's test classpath without Basalt's own modules and the 5.x gRPC SDK: the released RocketMQ 5.2.0 jars and their dependencies. */
    private static String rocketMqClassPath() {
        return List.of(System.getProperty("java.class.path").split(File.pathSeparator)).stream()
            .filter(entry -> !entry.contains(File.separator + "target" + File.separator))
            .filter(entry -> !entry.contains(File.separator + "io" + File.separator + "basalt" + File.separator))
            // the 5.x gRPC SDK's copies of the apache.rocketmq.v2 classes would shadow rocketmq-proto
            .filter(entry -> !entry.contains("rocketmq-client-java"))
            .collect(Collectors.joining(File.pathSeparator));
    }
}
