package io.basalt.store.timer;

/**
 * A recent rate of a growing counter, per second: the counter's growth between the last two samples at
 * least a second apart. Samples come from one thread; {@link #rate} may be read from any.
 */
final class RateMeter {
    private long prevCount;
    private long prevAt = Long.MIN_VALUE;
    private long lastCount;
    private long lastAt = Long.MIN_VALUE;

    synchronized void sample(long count, long nowMs) {
        if (lastAt == Long.MIN_VALUE) {
            lastAt = nowMs;
            lastCount = count;
            prevAt = nowMs;
            prevCount = count;
            return;
        }
        if (nowMs - lastAt >= 1000) {
            prevAt = lastAt;
            prevCount = lastCount;
            lastAt = nowMs;
            lastCount = count;
        }
    }

    /** Per second over the window ending now; 0 before two samples or after 5 s without any. */
    synchronized double rate(long count, long nowMs) {
        if (prevAt == Long.MIN_VALUE || nowMs - lastAt > 5000) {
            return 0.0;
        }
        long span = nowMs - prevAt;
        return span <= 0 ? 0.0 : (count - prevCount) * 1000.0 / span;
    }
}
