package io.basalt.tools.bench.failover;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code failoverbench}: one broker set in controller mode under the official RocketMQ 5.2.0 Controller, with a
 * NameServer, driven by the official 5.2.0 client. The same cases run against RocketMQ 5.2.0 brokers and Basalt
 * brokers ({@code --broker rocketmq|basalt}); the NameServer and the Controller are RocketMQ's on both sides, with
 * the same settings. Each case prints progress lines and ends with one {@code RESULT <label> <case> key=value ...}
 * line (see docs/benchmarks-failover.md); {@code bin/bench-failover} finds the class paths and runs a case.
 * Exit status: 0 when the case ran, 1 when it could not, 2 on bad arguments.
 */
@Command(name = "failoverbench", mixinStandardHelpOptions = true, version = "failoverbench (Basalt)",
    description = "Controller-mode failover and replicated-throughput benchmarks on the official RocketMQ 5.2.0 client.",
    subcommands = {FailoverCase.class, ThroughputCase.class})
public final class FailoverBench implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new CommandLine(new FailoverBench()).execute(args));
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 2;
    }

    /** Options every case takes: the deployment and the client. */
    static final class Common {
        @Option(names = "--broker", defaultValue = "rocketmq",
            description = "the brokers under test: rocketmq (5.2.0's BrokerStartup) or basalt (bin/mqbroker) (default: ${DEFAULT-VALUE})")
        String broker;
        @Option(names = "--label", description = "first word of the RESULT line (default: the --broker value)")
        String label;
        @Option(names = "--rocketmq-cp", required = true,
            description = "class path of RocketMQ 5.2.0's namesrv, broker and controller jars (bin/bench-failover builds it)")
        String rocketMqClassPath;
        @Option(names = "--basalt-home", defaultValue = ".", description = "Basalt checkout whose bin/mqbroker runs the Basalt brokers")
        Path basaltHome;
        @Option(names = "--run-dir", required = true, description = "directory for the stores, configurations and logs (must be empty or absent)")
        Path runDir;
        @Option(names = "--base-port", defaultValue = "20000",
            description = "NameServer on this port, Controller nodes on +10.., brokers on +100, +110, +120 (each also uses its port -2 and +1) (default: ${DEFAULT-VALUE}, below the kernel's ephemeral port range, so no outgoing connection holds one of them)")
        int basePort;
        @Option(names = "--controller-nodes", defaultValue = "1", description = "Controller nodes: 1, or 3 for a DLedger group (default: ${DEFAULT-VALUE})")
        int controllerNodes;
        @Option(names = "--heartbeat-timeout-ms", defaultValue = "10000",
            description = "broker key controllerHeartBeatTimeoutMills, both sides (default: ${DEFAULT-VALUE}, RocketMQ's)")
        long heartbeatTimeoutMs;
        @Option(names = "--scan-ms", defaultValue = "5000",
            description = "Controller keys scanNotActiveBrokerInterval and scanInactiveMasterInterval (default: ${DEFAULT-VALUE}, RocketMQ's)")
        long scanMs;
        @Option(names = "--heap", defaultValue = "1g", description = "heap of each broker JVM, both sides (default: ${DEFAULT-VALUE})")
        String heap;
        @Option(names = "--commitlog-file-size", defaultValue = "268435456",
            description = "mappedFileSizeCommitLog, both sides (default: ${DEFAULT-VALUE})")
        long commitLogFileSize;
        @Option(names = "--extra-conf", description = "extra broker.conf line key=value, both sides (repeatable)")
        java.util.List<String> extraConf = new java.util.ArrayList<>();
        @Option(names = "--size", defaultValue = "1024", description = "message body bytes (default: ${DEFAULT-VALUE})")
        int size;
        @Option(names = "--queues", defaultValue = "8", description = "queues of the benchmark topic (default: ${DEFAULT-VALUE})")
        int queues;
        @Option(names = "--client-route-poll-ms", defaultValue = "1000",
            description = "the producer's pollNameServerInterval: how soon it sees the new master's route (client default 30000) (default: ${DEFAULT-VALUE})")
        int routePollMs;

        String label() {
            return label != null ? label : broker;
        }

        Deployment.Flavour flavour() {
            return switch (broker) {
                case "rocketmq" -> Deployment.Flavour.ROCKETMQ;
                case "basalt" -> Deployment.Flavour.BASALT;
                default -> throw new CommandLine.ParameterException(new CommandLine(this),
                    "--broker must be rocketmq or basalt, not " + broker);
            };
        }

        Deployment deployment(PrintWriter out) throws IOException {
            if (controllerNodes != 1 && controllerNodes != 3) {
                throw new IllegalArgumentException("--controller-nodes must be 1 or 3");
            }
            return new Deployment(flavour(), runDir, rocketMqClassPath, basaltHome, basePort, controllerNodes,
                heartbeatTimeoutMs, scanMs, heap, commitLogFileSize, extraConf, out);
        }

        /** The settings that make one run comparable with another, for the RESULT line. */
        String settings() {
            return String.format(Locale.ROOT, "controller_nodes=%d heartbeat_timeout_ms=%d scan_ms=%d client_route_poll_ms=%d size=%d",
                controllerNodes, heartbeatTimeoutMs, scanMs, routePollMs, size);
        }
    }

    static void progress(PrintWriter out, String format, Object... args) {
        out.printf(Locale.ROOT, "[%tT] %s%n", System.currentTimeMillis(), String.format(Locale.ROOT, format, args));
        out.flush();
    }

    /** An exception and its causes on one line (the client's messages span lines and hide the broker's answer). */
    static String describe(Throwable e) {
        StringBuilder out = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (out.length() > 0) {
                out.append(" <- ");
            }
            out.append(t.getClass().getSimpleName()).append(": ").append(String.valueOf(t.getMessage())
                .replaceAll("\\s+", " ").replace("For more information, please visit the url, ", ""));
        }
        String s = out.toString();
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }

    /** The machine's load average (1, 5, 15 min) as {@code a/b/c}, or "?" where /proc/loadavg is not readable. */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).trim().split("\\s+");
            return f[0] + "/" + f[1] + "/" + f[2];
        } catch (IOException | ArrayIndexOutOfBoundsException e) {
            return "?";
        }
    }
}
