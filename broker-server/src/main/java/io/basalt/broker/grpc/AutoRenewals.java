package io.basalt.broker.grpc;

import io.basalt.broker.pop.ChangeInvisibleResult;
import io.basalt.broker.pop.PopHandle;
import io.basalt.broker.pop.PopService;
import io.basalt.common.concurrent.DaemonThreads;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Receipt handles the broker keeps invisible for {@code auto_renew} receives (push consumers), by (client, message
 * id): the {@code GrpcRenew} thread extends each one whose visibility ends within {@link #RENEW_AHEAD_MS} with
 * RocketMQ's schedule (1 m, 3 m, 5 m, 10 m, 30 m, then 1 h) until {@link #RENEW_MAX_MS} after delivery. Ack, change
 * and dead-letter requests carrying an older handle use the newest; a client that leaves (NotifyClientTermination,
 * closed Telemetry stream) gets its messages visible again after 1 s. RocketMQ 5.2.0 never starts its renewal, so
 * there a push consumer's message is delivered again after 60 s however long its listener runs. Thread-safe.
 */
final class AutoRenewals {
    private static final Logger log = LoggerFactory.getLogger(AutoRenewals.class);
    static final long RENEW_AHEAD_MS = 10_000;
    static final long RENEW_MAX_MS = 3 * 3_600_000L;
    static final long[] SCHEDULE_MS = {60_000, 180_000, 300_000, 600_000, 1_800_000, 3_600_000};
    static final long RELEASE_INVISIBLE_MS = 1_000;
    private static final long PERIOD_MS = 1_000;

    private static final class Tracked {
        final String clientId;
        final String group;
        final String topic;
        final long deliveredAt;
        volatile PopHandle handle;
        int renewals;

        Tracked(String clientId, String group, String topic, long deliveredAt, PopHandle handle) {
            this.clientId = clientId;
            this.group = group;
            this.topic = topic;
            this.deliveredAt = deliveredAt;
            this.handle = handle;
        }
    }

    private final ConcurrentMap<String, Tracked> tracked = new ConcurrentHashMap<>();
    private final PopService pop;
    private final LongSupplier clock;
    private ScheduledExecutorService scheduler;

    AutoRenewals(PopService pop, LongSupplier clock) {
        this.pop = pop;
        this.clock = clock;
    }

    private static String key(String clientId, String messageId) {
        return clientId + '\n' + messageId;
    }

    void track(String clientId, String group, String topic, String messageId, PopHandle handle) {
        tracked.put(key(clientId, messageId), new Tracked(clientId, group, topic, clock.getAsLong(), handle));
    }

    void forget(String clientId, String messageId) {
        tracked.remove(key(clientId, messageId));
    }

    /** The newest handle of a renewed message, else {@code handle} as the client gave it. */
    String newest(String clientId, String messageId, String handle) {
        Tracked t = tracked.get(key(clientId, messageId));
        return t == null ? handle : t.handle.encode();
    }

    int size() {
        return tracked.size();
    }

    /** The client left: its renewed messages become visible again after 1 s. */
    void clientGone(String clientId) {
        tracked.values().removeIf(t -> {
            if (!t.clientId.equals(clientId)) {
                return false;
            }
            PopHandle h = t.handle;
            pop.changeInvisibleTime(t.group, h.realTopic(t.topic, t.group), h.queueId(), h.offset(), h.extraInfo(),
                RELEASE_INVISIBLE_MS);
            return true;
        });
    }

    /** One pass: renews what is due; drops what is past its maximum or can no longer be renewed. */
    void renewDue() {
        long now = clock.getAsLong();
        for (var e : tracked.entrySet()) {
            Tracked t = e.getValue();
            PopHandle h = t.handle;
            if (h.popTime() + h.invisibleTime() - now > RENEW_AHEAD_MS) {
                continue;
            }
            if (h.expired(now) || now - t.deliveredAt >= RENEW_MAX_MS) {
                // too late (the message may already be delivered again) or renewed for long enough
                tracked.remove(e.getKey(), t);
                continue;
            }
            long extension = SCHEDULE_MS[Math.min(t.renewals, SCHEDULE_MS.length - 1)];
            ChangeInvisibleResult r = pop.changeInvisibleTime(t.group, h.realTopic(t.topic, t.group), h.queueId(),
                h.offset(), h.extraInfo(), extension);
            if (r.outcome().isSuccess()) {
                t.handle = r.newHandle();
                t.renewals++;
            } else {
                log.warn("renewing the receipt of a message of {} for {} failed: {}", t.topic, t.group,
                    r.outcome().remark());
            }
        }
    }

    synchronized void start() {
        scheduler = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("GrpcRenew"));
        scheduler.scheduleWithFixedDelay(() -> {
            try {
                renewDue();
            } catch (RuntimeException e) {
                log.warn("receipt renewal pass failed", e);
            }
        }, PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
    }

    synchronized void shutdown() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }
}
