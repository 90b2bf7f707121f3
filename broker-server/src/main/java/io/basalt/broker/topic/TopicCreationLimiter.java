package io.basalt.broker.topic;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

/**
 * How many topics one client host may auto-create by sending ({@code autoCreateTopicPerClientPerSecond}): a
 * token bucket per client IP address (all connections of a host share it), refilled at {@code perSecond}
 * tokens a second and holding at most {@code perSecond}, so a burst of that many passes at once. A host over
 * its rate gets TOPIC_NOT_EXIST for the send (see {@code SendRequestCheck}); sends to existing topics are never
 * limited. 0 turns the limit off. RocketMQ has no such limit.
 *
 * <p>Buckets of hosts idle for a minute are dropped when the table grows past {@link #MAX_TRACKED_HOSTS}, so a
 * scan from many addresses does not grow it without bound. Thread-safe: any send thread calls {@link #tryAcquire}.
 */
public final class TopicCreationLimiter {
    static final int MAX_TRACKED_HOSTS = 10_000;
    private static final long IDLE_NANOS = 60_000_000_000L;

    private final int perSecond;
    private final LongSupplier nanoClock;
    private final ConcurrentMap<String, Bucket> buckets = new ConcurrentHashMap<>();

    private static final class Bucket {
        private double tokens;
        private long refilledAt;

        Bucket(double tokens, long now) {
            this.tokens = tokens;
            this.refilledAt = now;
        }
    }

    public TopicCreationLimiter(int perSecond, LongSupplier nanoClock) {
        if (perSecond < 0) {
            throw new IllegalArgumentException("perSecond must be >= 0: " + perSecond);
        }
        this.perSecond = perSecond;
        this.nanoClock = nanoClock;
    }

    /** No limit. */
    public static TopicCreationLimiter unlimited() {
        return new TopicCreationLimiter(0, System::nanoTime);
    }

    public int perSecond() {
        return perSecond;
    }

    /** Takes one creation from {@code client}'s allowance; false when it has none left this second. */
    public boolean tryAcquire(SocketAddress client) {
        if (perSecond == 0) {
            return true;
        }
        long now = nanoClock.getAsLong();
        if (buckets.size() > MAX_TRACKED_HOSTS) {
            buckets.values().removeIf(b -> {
                synchronized (b) {
                    return now - b.refilledAt > IDLE_NANOS;
                }
            });
        }
        Bucket b = buckets.computeIfAbsent(host(client), h -> new Bucket(perSecond, now));
        synchronized (b) {
            b.tokens = Math.min(perSecond, b.tokens + (now - b.refilledAt) * (perSecond / 1e9));
            b.refilledAt = now;
            if (b.tokens < 1) {
                return false;
            }
            b.tokens -= 1;
            return true;
        }
    }

    private static String host(SocketAddress client) {
        if (client instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress().getHostAddress();
        }
        return String.valueOf(client);
    }
}
