package io.basalt.broker.schedule;

import java.util.concurrent.atomic.LongAdder;

/** What one level's deliverer counts, read by metrics and the status page from any thread. */
final class DeliveryCounters {
    final LongAdder delivered = new LongAdder();
    final LongAdder putFailures = new LongAdder();
    final LongAdder skipped = new LongAdder();
    /** Deliver time of the oldest due message not yet delivered, 0 when none is due. */
    volatile long oldestDueMs;
}
