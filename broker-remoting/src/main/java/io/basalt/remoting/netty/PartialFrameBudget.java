package io.basalt.remoting.netty;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of unfinished frames that all connections of one server hold together, bounded. Each
 * connection's decoder reserves what it buffers and gives it back when the frame completes or the
 * connection goes. Thread-safe: called from every selector thread.
 */
final class PartialFrameBudget {
    private final long limit;
    private final AtomicLong held = new AtomicLong();

    PartialFrameBudget(long limit) {
        this.limit = limit;
    }

    /**
     * Changes one connection's share by {@code delta} bytes.
     *
     * @return false (and nothing changed) when a growth would pass the limit
     */
    boolean adjust(long delta) {
        if (delta <= 0) {
            held.addAndGet(delta);
            return true;
        }
        while (true) {
            long now = held.get();
            if (now + delta > limit) {
                return false;
            }
            if (held.compareAndSet(now, now + delta)) {
                return true;
            }
        }
    }

    /** Bytes held now by all connections. */
    long held() {
        return held.get();
    }

    long limit() {
        return limit;
    }
}
