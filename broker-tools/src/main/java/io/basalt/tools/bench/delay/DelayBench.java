package io.basalt.tools.bench.delay;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code delaybench}: benchmarks of delayed delivery on the official RocketMQ 5.2.0 client, the same code against
 * Basalt and RocketMQ. Each case prints progress lines and ends with one {@code RESULT <label> <case> key=value ...}
 * line (see docs/benchmarks-delay.md). {@code bin/bench-delay} starts the broker under test and runs a case.
 * Exit status: 0 when the case ran (figures say what was delivered), 1 when it could not run, 2 on bad arguments.
 */
@Command(name = "delaybench", mixinStandardHelpOptions = true, version = "delaybench (Basalt)",
    description = "Timer and delay-level benchmarks on the official RocketMQ 5.2.0 client.",
    subcommands = {TimerBurstCase.class, PendingCase.class, LevelRateCase.class, RetryStormCase.class})
public final class DelayBench implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new CommandLine(new DelayBench()).execute(args));
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
            description = "pid of the broker JVM, for heap (jcmd), RSS and disk-write figures (0: none)")
        long brokerPid;
        @CommandLine.Option(names = "--size", defaultValue = "128", description = "message body bytes (default: ${DEFAULT-VALUE})")
        int size;
        @CommandLine.Option(names = "--window", defaultValue = "512", description = "async sends in flight at most (default: ${DEFAULT-VALUE})")
        int window;
        @CommandLine.Option(names = "--queues", defaultValue = "8", description = "queues per benchmark topic (default: ${DEFAULT-VALUE})")
        int queues;
        @CommandLine.Option(names = "--consume-threads", defaultValue = "16", description = "push consumer threads (default: ${DEFAULT-VALUE})")
        int consumeThreads;
        @CommandLine.Option(names = "--delay-levels", defaultValue = DelayLevels.ROCKETMQ_DEFAULT,
            description = "the broker's messageDelayLevel, to compute when a level's message is due (default: RocketMQ's)")
        String delayLevels;

        /** A topic/group name unique to this run, so runs never see each other's messages or offsets. */
        String unique(String what) {
            return "DelayBench_" + what + "_" + System.currentTimeMillis();
        }
    }

    static void progress(PrintWriter out, String format, Object... args) {
        out.printf(java.util.Locale.ROOT, "[%tT] " + format + "%n", prepend(System.currentTimeMillis(), args));
        out.flush();
    }

    private static Object[] prepend(Object first, Object[] rest) {
        Object[] all = new Object[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }
}
