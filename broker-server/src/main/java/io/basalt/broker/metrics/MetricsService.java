package io.basalt.broker.metrics;

import java.io.IOException;
import java.net.InetAddress;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.basalt.broker.status.StatusPageHandler;
import io.basalt.common.concurrent.DaemonThreads;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the broker's observability: the per-second traffic sampler, the per-minute {@code stats.log}
 * line, and (when {@code metricsPort} is not 0) the HTTP endpoint serving {@code /metrics} (Prometheus
 * text or protobuf, from the official exporter), the status page at {@code /} and its
 * {@code /status.json}. If the port cannot be bound the broker keeps serving messages without the
 * endpoint (an ERROR line says why): a clash on the metrics port must not take the broker down. {@link #start()} and {@link #shutdown()} from the controller's thread; both
 * idempotent.
 */
public final class MetricsService {
    private static final Logger log = LoggerFactory.getLogger(MetricsService.class);
    private static final long STATS_PERIOD_MS = 60_000;

    private final BrokerMetrics metrics;
    private final String bindAddress;
    private final int port;
    private final java.util.Optional<String> authToken;
    private final TrafficSampler sampler;
    private final StatsLogger statsLogger;
    private final StatusReport report;
    private final ScheduledExecutorService scheduler;
    private HTTPServer server;
    private boolean started;
    private boolean shutdown;

    /**
     * @param bindAddress the address the HTTP endpoint listens on
     * @param port        the HTTP port; 0 disables the endpoint (sampling and stats.log still run)
     * @param authToken   the bearer token every request of the endpoint must carry, if any
     */
    public MetricsService(BrokerMetrics metrics, String brokerName, String bindAddress, int port,
                          java.util.Optional<String> authToken) {
        this.metrics = metrics;
        this.bindAddress = bindAddress;
        this.port = port;
        this.authToken = authToken;
        this.sampler = new TrafficSampler(metrics, System::currentTimeMillis);
        this.statsLogger = new StatsLogger(metrics, brokerName, System::currentTimeMillis);
        this.report = new StatusReport(metrics, sampler, brokerName);
        this.scheduler = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("BrokerStatsThread"));
    }

    /** Starts sampling and the endpoint; a port that cannot be bound is logged at ERROR, not fatal. */
    public synchronized void start() {
        if (started) {
            return;
        }
        started = true;
        scheduler.scheduleAtFixedRate(() -> guarded("sampling", sampler::doWork), 1, 1, TimeUnit.SECONDS);
        scheduler.scheduleAtFixedRate(() -> guarded("stats.log", statsLogger::doWork), STATS_PERIOD_MS, STATS_PERIOD_MS,
            TimeUnit.MILLISECONDS);
        if (port > 0) {
            try {
                HTTPServer.Builder builder = HTTPServer.builder().inetAddress(InetAddress.getByName(bindAddress)).port(port)
                    .registry(metrics.registry()).defaultHandler(new StatusPageHandler(report::json));
                authToken.ifPresent(token -> builder.authenticator(new BearerTokenAuthenticator(token)));
                server = builder.buildAndStart();
            } catch (IOException e) {
                // Messages matter more than their metrics: the broker keeps serving, and says so loudly.
                log.error("metrics endpoint NOT started: cannot listen on {}:{} (metricsPort): {}", bindAddress, port,
                    e.toString());
                return;
            }
            log.info("metrics on http://{}:{}/metrics, status page on http://{}:{}/{}", bindAddress, server.getPort(),
                bindAddress, server.getPort(), authToken.isPresent() ? " (bearer token required: metricsAuthToken)" : "");
        }
    }

    /** The work of one tick; a failure is logged and the next tick runs. */
    private static void guarded(String what, java.util.function.IntSupplier work) {
        try {
            work.getAsInt();
        } catch (RuntimeException e) {
            log.warn("{} failed: {}", what, e.toString());
        }
    }

    /** The HTTP port, or -1 when the endpoint is disabled or not started. */
    public synchronized int port() {
        return server == null ? -1 : server.getPort();
    }

    public synchronized void shutdown() {
        if (!started || shutdown) {
            return;
        }
        shutdown = true;
        if (server != null) {
            server.stop();
        }
        scheduler.shutdownNow();
    }
}
