package io.basalt.broker.pop;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import io.basalt.common.concurrent.DaemonThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-delivery of un-acked POP messages: one thread per revive queue, each running its {@link ReviveQueueReader}
 * every {@code reviveInterval} ms. Runs only while this broker is the writable master ({@link #start} /
 * {@link #stop} follow the role, as timer delivery does); a new term reads again from the committed progress.
 * Thread-safe.
 */
public final class PopReviveService {
    private static final Logger log = LoggerFactory.getLogger(PopReviveService.class);

    private final List<ReviveQueueReader> readers = new ArrayList<>();
    private final long intervalMs;
    private ScheduledExecutorService threads;

    PopReviveService(int reviveQueueNum, long intervalMs, IntFunction<ReviveQueueReader> reader) {
        this.intervalMs = intervalMs;
        for (int q = 0; q < reviveQueueNum; q++) {
            readers.add(reader.apply(q));
        }
    }

    public synchronized boolean running() {
        return threads != null;
    }

    public synchronized void start() {
        if (threads != null) {
            return;
        }
        threads = Executors.newScheduledThreadPool(readers.size(), DaemonThreads.numbered("PopReviveService_"));
        for (int q = 0; q < readers.size(); q++) {
            ReviveQueueReader reader = readers.get(q);
            int queueId = q;
            reader.reset();
            threads.scheduleWithFixedDelay(() -> {
                try {
                    reader.round();
                } catch (RuntimeException e) {
                    log.error("revive queue {}: round failed, retried in {} ms", queueId, intervalMs, e);
                }
            }, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
        }
    }

    public synchronized void stop() {
        if (threads == null) {
            return;
        }
        threads.shutdownNow();
        try {
            if (!threads.awaitTermination(10, TimeUnit.SECONDS)) {
                log.warn("revive threads still running after 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        threads = null;
    }
}
