package io.basalt.tools.bench.failover;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code failover}: three brokers of one set, {@code --threads} producer threads sending; {@code --rounds} times:
 * wait until the Controller's SyncStateSet holds all three live replicas and the set has sent under load for
 * {@code --settle-s}, {@code kill -9} the master, and measure the time from the kill to the first acknowledged
 * send that started after it (necessarily on the new master: the old one is dead). On the way, when the
 * Controller first names the new master and when the NameServer routes brokerId 0 to it. Then the killed broker
 * starts again on its store, as a replica.
 */
@Command(name = "failover", mixinStandardHelpOptions = true,
    description = "kill -9 of the master under load, repeated: time to the first acknowledged send on the new master.")
final class FailoverCase implements Callable<Integer> {
    @CommandLine.Mixin
    FailoverBench.Common common = new FailoverBench.Common();
    @Option(names = "--rounds", defaultValue = "10", description = "failovers (default: ${DEFAULT-VALUE})")
    int rounds;
    @Option(names = "--threads", defaultValue = "4", description = "sending threads (default: ${DEFAULT-VALUE})")
    int threads;
    @Option(names = "--settle-s", defaultValue = "10", description = "seconds of sending before each kill (default: ${DEFAULT-VALUE})")
    int settleSeconds;
    @Option(names = "--round-timeout-s", defaultValue = "180",
        description = "give up when no send is acknowledged this long after a kill (default: ${DEFAULT-VALUE})")
    int roundTimeoutSeconds;
    @Option(names = "--fault", defaultValue = "kill",
        description = "kill: kill -9 (the kernel closes the master's connections, the Controller sees its channel close);"
            + " stop: SIGSTOP (a hung or cut-off host: connections stay open, only the heartbeat timeout finds it; the"
            + " stopped JVM is killed after the round) (default: ${DEFAULT-VALUE})")
    String fault;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (!"kill".equals(fault) && !"stop".equals(fault)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--fault must be kill or stop");
        }
        String loadBefore = FailoverBench.loadAverage();
        try (Deployment deployment = common.deployment(out)) {
            deployment.startNameServerAndController();
            List<Deployment.Broker> brokers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                brokers.add(deployment.addBroker(i));
            }
            try (ControllerView view = new ControllerView(deployment.namesrv(), deployment.controllerAddrs())) {
                // the first broker to ask becomes master; the others follow it
                brokers.get(0).start();
                view.awaitSet(1, 120);
                brokers.get(1).start();
                brokers.get(2).start();
                ControllerView.Replicas set = view.awaitSet(3, 180);
                FailoverBench.progress(out, "%s brokers up: master %s (epoch %d), SyncStateSet %s", common.label(),
                    set.masterAddress(), set.masterEpoch(), set.inSync());
                String topic = "FailoverBench_" + System.currentTimeMillis();
                view.createTopic(set.masterAddress(), topic, common.queues);
                awaitRoute(view, topic, set.masterAddress());

                List<Long> kills = new ArrayList<>();
                List<Double> toAck = new ArrayList<>();
                List<Double> toElect = new ArrayList<>();
                List<Double> toRoute = new ArrayList<>();
                String finalMaster;
                try (Senders senders = new Senders(deployment.namesrv(), topic, threads, common.size, common.routePollMs)) {
                    senders.start();
                    for (int round = 1; round <= rounds; round++) {
                        set = view.awaitSet(3, 180);
                        long ackedBefore = senders.acked.sum();
                        Thread.sleep(TimeUnit.SECONDS.toMillis(settleSeconds));
                        if (senders.acked.sum() == ackedBefore) {
                            throw new IllegalStateException("no send acknowledged in " + settleSeconds + " s before round "
                                + round + ": " + senders.firstError.get());
                        }
                        String oldMaster = set.masterAddress();
                        Deployment.Broker victim = deployment.brokerAt(oldMaster);
                        Senders.Round r = new Senders.Round(System.nanoTime());
                        senders.watch(r);
                        if ("stop".equals(fault)) {
                            victim.freeze();
                        } else {
                            victim.kill();
                        }
                        r.countFromNanos = System.nanoTime();
                        kills.add(r.killNanos);
                        long elected = 0;
                        long routed = 0;
                        String newMaster = null;
                        long deadline = r.killNanos + TimeUnit.SECONDS.toNanos(roundTimeoutSeconds);
                        while (!(r.acknowledged() && elected != 0 && routed != 0) && System.nanoTime() < deadline) {
                            if (elected == 0) {
                                ControllerView.Replicas now = view.replicas();
                                if (now != null && now.hasMaster() && !now.masterAddress().equals(oldMaster)) {
                                    elected = System.nanoTime();
                                    newMaster = now.masterAddress();
                                }
                            }
                            if (newMaster != null && routed == 0 && newMaster.equals(view.registered().get(0L))) {
                                routed = System.nanoTime();
                            }
                            Thread.sleep(20);
                        }
                        if (!r.acknowledged()) {
                            throw new IllegalStateException("round " + round + ": no send acknowledged within "
                                + roundTimeoutSeconds + " s of killing " + oldMaster + "; Controller: " + view.replicas()
                                + ", NameServer: " + view.registered() + ", client: " + senders.firstError.get());
                        }
                        double ackMs = (r.firstAckNanos.get() - r.killNanos) / 1e6;
                        double electMs = elected == 0 ? Double.NaN : (elected - r.killNanos) / 1e6;
                        double routeMs = routed == 0 ? Double.NaN : (routed - r.killNanos) / 1e6;
                        toAck.add(ackMs);
                        toElect.add(electMs);
                        toRoute.add(routeMs);
                        FailoverBench.progress(out, "round %d: killed master %s; Controller named %s after %.0f ms, "
                                + "NameServer routed it after %.0f ms, first acknowledged send after %.0f ms; the topic"
                                + " has %d write queues now", round, oldMaster, newMaster, electMs, routeMs, ackMs,
                            view.writeQueues(topic));
                        victim.kill();
                        victim.start();
                    }
                    set = view.awaitSet(3, 180);
                    finalMaster = set.masterAddress();
                    senders.close();
                    long acked = senders.acked.sum();
                    long stored = view.stored(finalMaster, topic);
                    ReadBack.Outcome back = ReadBack.run(deployment.namesrv(), topic, senders.ackedSequences, kills, 30, out);
                    out.println(String.format(Locale.ROOT,
                        "RESULT %s failover rounds=%d threads=%d %s median_ms=%.0f max_ms=%.0f min_ms=%.0f"
                            + " elect_median_ms=%.0f elect_max_ms=%.0f route_median_ms=%.0f route_max_ms=%.0f"
                            + " fault=%s queues_created=%d queues_at_end=%d acked=%d failed=%d stored_on_final_master=%d missing=%d duplicates=%d load=%s..%s%s",
                        common.label(), rounds, threads, common.settings(), median(toAck), max(toAck), min(toAck),
                        median(toElect), max(toElect), median(toRoute), max(toRoute), fault, common.queues, view.writeQueues(topic), acked, senders.failed.sum(),
                        stored, back.missing(), back.duplicates(), loadBefore, FailoverBench.loadAverage(),
                        senders.firstError.get() == null ? ""
                            : " first_error=\"" + senders.firstError.get().replace('"', '\'') + "\""));
                    out.println("ROUNDS " + common.label() + " ack_ms=" + join(toAck) + " elect_ms=" + join(toElect)
                        + " route_ms=" + join(toRoute));
                    out.flush();
                }
            }
            return 0;
        }
    }

    static void awaitRoute(ControllerView view, String topic, String master) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!view.routes(topic, master)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the NameServer does not route " + topic + " to " + master);
            }
            Thread.sleep(200);
        }
    }

    private static List<Double> known(List<Double> values) {
        return values.stream().filter(Objects::nonNull).filter(v -> !v.isNaN()).sorted().toList();
    }

    static double median(List<Double> values) {
        List<Double> v = known(values);
        if (v.isEmpty()) {
            return Double.NaN;
        }
        int n = v.size();
        return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
    }

    static double max(List<Double> values) {
        List<Double> v = known(values);
        return v.isEmpty() ? Double.NaN : v.get(v.size() - 1);
    }

    static double min(List<Double> values) {
        List<Double> v = known(values);
        return v.isEmpty() ? Double.NaN : v.get(0);
    }

    private static String join(List<Double> values) {
        return String.join(",", values.stream().map(v -> String.format(Locale.ROOT, "%.0f", v)).toList());
    }
}
