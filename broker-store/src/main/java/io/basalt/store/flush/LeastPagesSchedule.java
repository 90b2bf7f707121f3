package io.basalt.store.flush;

import java.util.function.LongSupplier;

/**
 * How many dirty pages a periodic commit or flush round waits for: {@code leastPages}, except once
 * every {@code thoroughIntervalMs}, when the round takes everything (0 pages). {@link #nextRound()} on the
 * service thread only; {@link #worthARound} from any thread.
 */
final class LeastPagesSchedule {
    private final int leastPages;
    private final int thoroughIntervalMs;
    private final LongSupplier clockMs;
    private volatile long lastThoroughMs;

    LeastPagesSchedule(int leastPages, int thoroughIntervalMs, LongSupplier clockMs) {
        this.leastPages = leastPages;
        this.thoroughIntervalMs = thoroughIntervalMs;
        this.clockMs = clockMs;
        this.lastThoroughMs = clockMs.getAsLong();
    }

    /** The page threshold of the round starting now. */
    int nextRound() {
        long now = clockMs.getAsLong();
        if (now - lastThoroughMs >= thoroughIntervalMs) {
            lastThoroughMs = now;
            return 0;
        }
        return leastPages;
    }

    /**
     * Whether a round starting now would move something with {@code pendingPages} pages pending: enough pages, or
     * the thorough interval has passed (then it takes whatever is there). Any thread.
     */
    boolean worthARound(long pendingPages) {
        return pendingPages >= leastPages || clockMs.getAsLong() - lastThoroughMs >= thoroughIntervalMs;
    }
}
