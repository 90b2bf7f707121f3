package io.basalt.broker.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What the role logic reports through {@link HaMetrics.Events}: elections counted, time without a master. */
class HaMetricsEventsTest {

    @Test
    void electionsAreCountedAndTheTimeWithoutAMasterRunsFromTheFirstLoss() {
        AtomicLong now = new AtomicLong(10_000);
        HaMetrics ha = new HaMetrics(null, null, 1024, now::get);
        HaMetrics.Events events = ha.events();
        assertEquals(0, ha.secondsWithoutMaster());
        events.masterLost();
        now.addAndGet(1500);
        events.masterLost(); // still lost: the clock keeps running from the first loss
        now.addAndGet(1500);
        assertEquals(3.0, ha.secondsWithoutMaster());
        events.recordElection();
        events.masterFound();
        assertEquals(0, ha.secondsWithoutMaster());
        assertEquals(1, ha.elections());
        ha.syncStateSetSize(() -> 3);
        assertEquals(3, ha.syncStateSetSize());
    }

    @Test
    void inControllerModeTheRoleManagersCountsAreReported() {
        HaMetrics ha = new HaMetrics(null, null, 1024, () -> 0);
        ha.events().recordElection(); // not what the Controller said: replaced below
        AtomicLong elections = new AtomicLong(4);
        AtomicLong withoutMaster = new AtomicLong(2500);
        ha.followController(elections::get, withoutMaster::get, () -> 2);
        assertEquals(4, ha.elections());
        assertEquals(2.5, ha.secondsWithoutMaster());
        assertEquals(2, ha.syncStateSetSize());
        withoutMaster.set(0);
        assertEquals(0, ha.secondsWithoutMaster());
    }
}
