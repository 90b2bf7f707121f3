package io.basalt.broker.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** RocketMQ's minute window: 10 s samples, 7 kept, a synthetic zero first; sum, tps and avgpt over it. */
class GroupGetStatsTest {
    private final AtomicLong clockMs = new AtomicLong(5_000_000);
    private final GroupGetStats stats = new GroupGetStats(clockMs::get);

    private void tick() {
        clockMs.addAndGet(StatsItem.SAMPLE_INTERVAL_MS);
        stats.sample();
    }

    @Test
    void theMinuteWindowSlidesOverTheLastSixIntervals() {
        assertSame(StatsItem.Window.EMPTY, stats.minute("T", "cg"));
        stats.delivered("T", "cg", 30);
        stats.delivered("T", "cg", 10);
        stats.sample();
        StatsItem.Window first = stats.minute("T", "cg");
        assertEquals(40, first.sum());
        assertEquals(4.0, first.tps(), 1e-9, "40 messages over the synthetic 10 s interval");
        assertEquals(20.0, first.avgpt(), 1e-9, "messages per pull");

        for (int i = 0; i < 5; i++) {
            stats.delivered("T", "cg", 60);
            tick();
        }
        StatsItem.Window full = stats.minute("T", "cg");
        assertEquals(340, full.sum());
        assertEquals(340 / 60.0, full.tps(), 1e-9, "a full ring spans 60 s");

        tick();
        // the synthetic zero left the ring: the window now starts at the first real sample (40)
        assertEquals(300, stats.minute("T", "cg").sum());
        assertEquals(5.0, stats.minute("T", "cg").tps(), 1e-9);
        assertEquals(StatsItem.Window.EMPTY, stats.minute("T", "other"));
    }

    @Test
    void anItemIdleForAMinuteIsDroppedAndStartsAgainOnTheNextPull() {
        stats.delivered("T", "cg", 10);
        stats.sample();
        for (int i = 0; i < 7; i++) {
            tick();
        }
        assertSame(StatsItem.Window.EMPTY, stats.minute("T", "cg"), "dropped after a minute without pulls");
        stats.delivered("T", "cg", 20);
        tick();
        assertEquals(20, stats.minute("T", "cg").sum());
    }
}
