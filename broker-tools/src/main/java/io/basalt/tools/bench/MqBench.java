package io.basalt.tools.bench;

import java.io.PrintStream;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code mqbench producer|consumer}: a load generator on the official RocketMQ client. Prints a line a
 * second (TPS, errors, p50/p99 latency) and a summary with HdrHistogram percentiles at the end. Exit
 * status: 0 when every operation succeeded, 1 when some failed, 2 on bad arguments.
 */
@Command(name = "mqbench", mixinStandardHelpOptions = true, version = "mqbench (Basalt)",
    description = "Load generator for Basalt (or any RocketMQ broker) on the official RocketMQ 5.2.0 client.",
    subcommands = {ProducerBench.class, ConsumerBench.class})
public final class MqBench implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(System.out, args));
    }

    static int run(PrintStream out, String... args) {
        CommandLine cl = new CommandLine(new MqBench());
        cl.setOut(new java.io.PrintWriter(out, true));
        return cl.execute(args);
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 2;
    }
}
