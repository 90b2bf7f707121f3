package io.basalt.broker.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * RocketMQ's windows on a fake clock: the minute (10 s samples, 7 kept), the hour (every 10 minutes, 7 kept) and
 * the day (every hour, 25 kept), each starting with a synthetic zero one interval back; sum, tps and avgpt over
 * them; and the stats names and keys they are found by.
 */
class BrokerStatsTest {
    private final AtomicLong clockMs = new AtomicLong(5_000_000);
    private final BrokerStats stats = new BrokerStats(clockMs::get, "DefaultCluster", t -> t.startsWith("rmq_sys_"));

    /** The next sampling round, 10 s after the last. */
    private void tick() {
        clockMs.addAndGet(StatsItem.SAMPLE_INTERVAL_MS);
        stats.sample();
    }

    private StatsItem item(String name, String key) {
        return assertInstanceOf(BrokerStats.Lookup.Found.class, stats.find(name, key)).item();
    }

    @Test
    void theMinuteWindowSlidesOverTheLastSixIntervals() {
        assertSame(StatsItem.Window.EMPTY, stats.groupGets().minute("T", "cg"));
        stats.delivered("T", "cg", 30, 3000);
        stats.delivered("T", "cg", 10, 1000);
        stats.sample();
        StatsItem.Window first = item("GROUP_GET_NUMS", "T@cg").minute();
        assertEquals(40, first.sum());
        assertEquals(4.0, first.tps(), 1e-9, "40 messages over the synthetic 10 s interval");
        assertEquals(20.0, first.avgpt(), 1e-9, "messages per pull");
        assertEquals(4000, item("GROUP_GET_SIZE", "T@cg").minute().sum());

        for (int i = 0; i < 5; i++) {
            stats.delivered("T", "cg", 60, 6000);
            tick();
        }
        StatsItem.Window full = stats.groupGets().minute("T", "cg");
        assertEquals(340, full.sum());
        assertEquals(340 / 60.0, full.tps(), 1e-9, "a full ring spans 60 s");

        tick();
        // the synthetic zero left the ring: the window now starts at the first real sample (40)
        assertEquals(300, stats.groupGets().minute("T", "cg").sum());
        assertEquals(5.0, stats.groupGets().minute("T", "cg").tps(), 1e-9);
        assertEquals(StatsItem.Window.EMPTY, stats.groupGets().minute("T", "other"));
    }

    @Test
    void theHourWindowIsSampledEveryTenMinutesAndTheDayWindowEveryHour() {
        stats.stored("T", 10, 1000);
        stats.sample(); // round 0 samples all three rings
        StatsItem nums = item("TOPIC_PUT_NUMS", "T");
        assertEquals(10, nums.hour().sum());
        assertEquals(10 / 600.0, nums.hour().tps(), 1e-12, "the synthetic zero is 10 minutes back");
        assertEquals(10, nums.day().sum());
        assertEquals(10 / 3600.0, nums.day().tps(), 1e-12, "the synthetic zero is an hour back");

        stats.stored("T", 50, 5000);
        for (int round = 1; round < 60; round++) {
            tick();
        }
        assertEquals(10, nums.hour().sum(), "the hour ring has not been sampled since round 0");
        assertEquals(0, nums.minute().sum(), "the minute ring has: nothing was stored in the last minute");
        tick(); // round 60: ten minutes later
        assertEquals(60, nums.hour().sum());
        assertEquals(60 / 1200.0, nums.hour().tps(), 1e-12, "60 messages over 20 minutes");
        assertEquals(1.0 * 60 / 2, nums.hour().avgpt(), 1e-12, "messages per send request");
        assertEquals(10, nums.day().sum(), "the day ring waits for the hour");

        for (int round = 61; round <= 360; round++) {
            tick();
        }
        assertEquals(60, nums.day().sum());
        assertEquals(60 / 7200.0, nums.day().tps(), 1e-12, "over the synthetic hour and the real one");
        assertEquals(50, nums.hour().sum(), "the hour ring now spans rounds 0 to 360: the 50 stored after round 0");
        assertEquals(6000, item("TOPIC_PUT_SIZE", "T").day().sum());
    }

    @Test
    void theDayRingKeepsTwentyFourHours() {
        stats.stored("T", 1, 100);
        stats.sample();
        StatsItem nums = item("TOPIC_PUT_NUMS", "T");
        for (int hour = 1; hour <= 24; hour++) {
            stats.stored("T", 1, 100);
            for (int i = 0; i < SamplingTick.ROUNDS_PER_DAY_SAMPLE; i++) {
                tick();
            }
        }
        // 25 snapshots: hours 0..24; the synthetic zero and the first hour's message have left
        assertEquals(24, nums.day().sum());
        assertEquals(24 / 86_400.0, nums.day().tps(), 1e-12);
    }

    @Test
    void brokerTotalsCountMessagesWithoutEventsAndSetSystemTopicsApart() {
        stats.stored("T", 3, 300);
        stats.stored("rmq_sys_X", 2, 200);
        stats.delivered("T", "cg", 4, 400);
        stats.delivered("rmq_sys_X", "cg", 5, 500);
        stats.sample();
        StatsItem.Window put = item("BROKER_PUT_NUMS", "DefaultCluster").minute();
        assertEquals(5, put.sum());
        assertEquals(0.0, put.avgpt(), "RocketMQ adds no times to the broker totals");
        assertEquals(3, item("BROKER_PUT_NUMS_WITHOUT_SYSTEM_TOPIC", "DefaultCluster").minute().sum());
        assertEquals(9, item("BROKER_GET_NUMS", "DefaultCluster").minute().sum());
        assertEquals(4, item("BROKER_GET_NUMS_WITHOUT_SYSTEM_TOPIC", "DefaultCluster").minute().sum());
    }

    @Test
    void sendBacksAreCountedByFirstTopicAndGroup() {
        stats.sentBack("T", "cg");
        stats.sentBack("T", "cg");
        stats.sample();
        StatsItem.Window w = item("SNDBCK_PUT_NUMS", "T@cg").minute();
        assertEquals(2, w.sum());
        assertEquals(1.0, w.avgpt());
    }

    @Test
    void unknownKeysAndNamesAreToldApart() {
        stats.stored("T", 1, 1);
        assertInstanceOf(BrokerStats.Lookup.NoSuchKey.class, stats.find("TOPIC_PUT_NUMS", "other"));
        assertInstanceOf(BrokerStats.Lookup.NoSuchKey.class, stats.find("GROUP_GET_NUMS", "T"));
        assertInstanceOf(BrokerStats.Lookup.NoSuchKey.class, stats.find("BROKER_PUT_NUMS", "OtherCluster"));
        assertInstanceOf(BrokerStats.Lookup.NotKept.class, stats.find("QUEUE_PUT_NUMS", "T@0"));
    }

    @Test
    void anItemIdleForADayIsDroppedAndStartsAgainOnTheNextPull() {
        stats.delivered("T", "cg", 10, 100);
        stats.sample();
        for (int i = 0; i < 23 * SamplingTick.ROUNDS_PER_DAY_SAMPLE; i++) {
            tick();
        }
        assertInstanceOf(BrokerStats.Lookup.Found.class, stats.find("GROUP_GET_NUMS", "T@cg"),
            "kept while the day window still saw its pull");
        for (int i = 0; i < 2 * SamplingTick.ROUNDS_PER_DAY_SAMPLE; i++) {
            tick();
        }
        assertSame(StatsItem.Window.EMPTY, stats.groupGets().minute("T", "cg"), "dropped after a day without pulls");
        stats.delivered("T", "cg", 20, 200);
        tick();
        assertEquals(20, stats.groupGets().minute("T", "cg").sum());
    }
}
