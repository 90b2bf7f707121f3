package io.basalt.tools.bench.transaction;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code txbench}: benchmarks of transactional messages on the official RocketMQ 5.2.0 {@code TransactionMQProducer},
 * the same code against Basalt and RocketMQ. Each case prints progress lines and ends with one
 * {@code RESULT <label> <case> key=value ...} line (see docs/benchmarks-transactions.md); {@code bin/bench-transaction}
 * starts the broker under test and runs a case. Exit status: 0 when the case ran (its figures say what was delivered),
 * 1 when it could not run, 2 on bad arguments.
 */
@Command(name = "txbench", mixinStandardHelpOptions = true, version = "txbench (Basalt)",
    description = "Transactional message benchmarks on the official RocketMQ 5.2.0 client.",
    subcommands = {CommitRateCase.class, CheckResolveCase.class})
public final class TransactionBench implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new CommandLine(new TransactionBench()).execute(args));
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 2;
    }

    /** Options every case takes. */
    static final class Common {
        @CommandLine.Option(names = {"-n", "--namesrv"}, defaultValue = "127.0.0.1:10911",
            description = "NameServer address; a Basalt broker answers route queries itself (default: ${DEFAULT-VALUE})")
        String namesrv;
        @CommandLine.Option(names = "--label", defaultValue = "broker", description = "first word of the RESULT line, e.g. basalt or rocketmq")
        String label;
        @CommandLine.Option(names = "--broker-pid", defaultValue = "0",
            description = "pid of the broker JVM, for its CPU time (/proc/<pid>/stat; 0: none)")
        long brokerPid;
        @CommandLine.Option(names = "--size", defaultValue = "1024", description = "message body bytes (default: ${DEFAULT-VALUE})")
        int size;
        @CommandLine.Option(names = "--threads", defaultValue = "16", description = "sending threads (default: ${DEFAULT-VALUE})")
        int threads;
        @CommandLine.Option(names = "--queues", defaultValue = "8", description = "queues of the benchmark topic (default: ${DEFAULT-VALUE})")
        int queues;
        @CommandLine.Option(names = "--consume-threads", defaultValue = "16", description = "push consumer threads (default: ${DEFAULT-VALUE})")
        int consumeThreads;

        /** A topic/group name unique to this run, so runs never see each other's messages or offsets. */
        String unique(String what) {
            return "TxBench_" + what + "_" + System.currentTimeMillis();
        }

        ProcessCpu cpu() {
            return new ProcessCpu(brokerPid);
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
        return out.toString();
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
