package io.basalt.tools.bench.failover;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code throughput}: two brokers of one set (a master and one replica in its SyncStateSet; with
 * {@code allAckInSyncStateSet=true} every SEND_OK waits for the replica), {@code --threads} threads sending
 * {@code --size}-byte messages synchronously. After a warm-up, a window of {@code --seconds}: acknowledged sends
 * per second and their latency. The SyncStateSet is read before and after the window: a replica that fell out
 * would turn the figure into the master's alone, and the RESULT line says so.
 */
@Command(name = "throughput", mixinStandardHelpOptions = true,
    description = "Sync sends/s and latency with one replica in the SyncStateSet (allAckInSyncStateSet=true).")
final class ThroughputCase implements Callable<Integer> {
    @CommandLine.Mixin
    FailoverBench.Common common = new FailoverBench.Common();
    @Option(names = "--threads", defaultValue = "16", description = "sending threads (default: ${DEFAULT-VALUE})")
    int threads;
    @Option(names = "--warmup-s", defaultValue = "30", description = "seconds of warm-up before the window (default: ${DEFAULT-VALUE})")
    int warmupSeconds;
    @Option(names = "--seconds", defaultValue = "30", description = "the measured window (default: ${DEFAULT-VALUE})")
    int seconds;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try (Deployment deployment = common.deployment(out)) {
            deployment.startNameServerAndController();
            Deployment.Broker first = deployment.addBroker(0);
            Deployment.Broker second = deployment.addBroker(1);
            try (ControllerView view = new ControllerView(deployment.namesrv(), deployment.controllerAddrs())) {
                first.start();
                view.awaitSet(1, 120);
                second.start();
                ControllerView.Replicas before = view.awaitSet(2, 180);
                FailoverBench.progress(out, "%s brokers up: master %s (epoch %d), SyncStateSet %s", common.label(),
                    before.masterAddress(), before.masterEpoch(), before.inSync());
                String topic = "FailoverBench_tput_" + System.currentTimeMillis();
                view.createTopic(before.masterAddress(), topic, common.queues);
                FailoverCase.awaitRoute(view, topic, before.masterAddress());
                String loadBefore = FailoverBench.loadAverage();
                try (Senders senders = new Senders(deployment.namesrv(), topic, threads, common.size, common.routePollMs)) {
                    senders.start();
                    Thread.sleep(TimeUnit.SECONDS.toMillis(warmupSeconds));
                    FailoverBench.progress(out, "warm-up: %d acknowledged, %d failed", senders.acked.sum(), senders.failed.sum());
                    long failedBefore = senders.failed.sum();
                    ControllerView.Replicas atStart = view.replicas();
                    long windowStart = System.nanoTime();
                    senders.window(true);
                    for (int s = 0; s < seconds; s++) {
                        Thread.sleep(1000);
                        if ((s + 1) % 10 == 0) {
                            FailoverBench.progress(out, "window %d s: %d acknowledged", s + 1, senders.windowAcked.sum());
                        }
                    }
                    senders.window(false);
                    double windowS = (System.nanoTime() - windowStart) / 1e9;
                    ControllerView.Replicas atEnd = view.replicas();
                    long inWindow = senders.windowAcked.sum();
                    Histogram h = senders.latencies();
                    int inSyncStart = atStart == null ? -1 : atStart.aliveInSync().size();
                    int inSyncEnd = atEnd == null ? -1 : atEnd.aliveInSync().size();
                    out.println(String.format(Locale.ROOT,
                        "RESULT %s throughput threads=%d %s window_s=%.1f acked=%d tps=%.0f p50_ms=%.2f p99_ms=%.2f"
                            + " p999_ms=%.2f max_ms=%.2f failed_in_window=%d sync_state_set=%d..%d%s load=%s..%s%s",
                        common.label(), threads, common.settings(), windowS, inWindow, inWindow / windowS,
                        h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0,
                        h.getValueAtPercentile(99.9) / 1000.0, h.getMaxValue() / 1000.0,
                        senders.failed.sum() - failedBefore, inSyncStart, inSyncEnd,
                        inSyncStart == 2 && inSyncEnd == 2 ? "" : " REPLICA_NOT_IN_SYNC_THROUGHOUT",
                        loadBefore, FailoverBench.loadAverage(),
                        senders.firstError.get() == null ? ""
                            : " first_error=\"" + senders.firstError.get().replace('"', '\'') + "\""));
                    out.flush();
                }
            }
            return 0;
        }
    }
}
