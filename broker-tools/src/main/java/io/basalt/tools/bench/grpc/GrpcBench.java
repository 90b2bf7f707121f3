package io.basalt.tools.bench.grpc;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;

import io.basalt.tools.bench.transaction.ProcessCpu;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code grpcbench}: benchmarks of the RocketMQ 5.x gRPC protocol with the official Java SDK
 * ({@code rocketmq-client-java}), the same code against Basalt's gRPC endpoint and RocketMQ's proxy. Each case
 * prints progress lines and ends with one {@code RESULT <label> <case> key=value ...} line (see
 * docs/benchmarks-grpc.md); {@code bin/bench-grpc} starts the broker under test and runs the cases. Exit status: 0
 * when the case ran, 1 when it could not run, 2 on bad arguments.
 */
@Command(name = "grpcbench", mixinStandardHelpOptions = true, version = "grpcbench (Basalt)",
    description = "gRPC (RocketMQ 5.x SDK) benchmarks: send, receive, e2e.",
    subcommands = {SendCase.class, ReceiveCase.class, EndToEndCase.class})
public final class GrpcBench implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        int code = new CommandLine(new GrpcBench()).execute(args);
        // the SDK leaves non-daemon threads behind after close()
        System.exit(code);
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 2;
    }

    /** Options every case takes. */
    static final class Common {
        @CommandLine.Option(names = {"-e", "--endpoint"}, defaultValue = "127.0.0.1:8081",
            description = "gRPC endpoint host:port (default: ${DEFAULT-VALUE})")
        String endpoint;
        @CommandLine.Option(names = "--tls", description = "connect with TLS (default: plaintext)")
        boolean tls;
        @CommandLine.Option(names = "--topic", defaultValue = "BenchTopic", description = "an existing NORMAL topic (default: ${DEFAULT-VALUE})")
        String topic;
        @CommandLine.Option(names = "--label", defaultValue = "broker", description = "first word of the RESULT line, e.g. basalt or rocketmq")
        String label;
        @CommandLine.Option(names = "--broker-pid", defaultValue = "0",
            description = "pid of the broker JVM, for its CPU time (/proc/<pid>/stat; 0: none)")
        long brokerPid;
        @CommandLine.Option(names = "--size", defaultValue = "1024", description = "message body bytes (default: ${DEFAULT-VALUE})")
        int size;
        @CommandLine.Option(names = {"-w", "--warmup"}, defaultValue = "15", description = "warm-up seconds (default: ${DEFAULT-VALUE})")
        int warmupSeconds;
        @CommandLine.Option(names = {"-d", "--measure"}, defaultValue = "30", description = "measured seconds (default: ${DEFAULT-VALUE})")
        int measureSeconds;

        ProcessCpu cpu() {
            return new ProcessCpu(brokerPid);
        }

        GrpcClients clients() {
            return new GrpcClients(endpoint, tls);
        }
    }

    /** CPU milliseconds the broker spent per 1,000 messages, or "-" when its pid is not known. */
    static String cpuMsPer1k(ProcessCpu cpu, long cpuMicros, long messages) {
        if (!cpu.known() || messages <= 0) {
            return "-";
        }
        return String.format(Locale.ROOT, "%.1f", cpuMicros / 1000.0 * 1000.0 / messages);
    }

    static long cpuMicros(ProcessCpu cpu) {
        try {
            return cpu.cpuMicros();
        } catch (IOException e) {
            return 0;
        }
    }

    static String ms(long micros) {
        return String.format(Locale.ROOT, "%.2f", micros / 1000.0);
    }

    static void progress(PrintWriter out, String format, Object... args) {
        out.printf(Locale.ROOT, "[%tT] %s%n", System.currentTimeMillis(), String.format(Locale.ROOT, format, args));
        out.flush();
    }

    /** An exception and its causes on one line. */
    static String describe(Throwable e) {
        StringBuilder out = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (out.length() > 0) {
                out.append(" <- ");
            }
            out.append(t.getClass().getSimpleName()).append(": ").append(String.valueOf(t.getMessage()).replaceAll("\\s+", " "));
        }
        return out.toString();
    }
}
