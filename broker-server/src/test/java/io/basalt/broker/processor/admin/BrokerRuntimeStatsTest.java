package io.basalt.broker.processor.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BrokerRuntimeStatsTest {
    private final AtomicLong put = new AtomicLong();
    private final AtomicLong got = new AtomicLong();
    private final AtomicLong now = new AtomicLong(LocalDateTime.of(2026, 3, 1, 23, 0).toInstant(ZoneOffset.UTC).toEpochMilli());
    private final BrokerRuntimeStats stats = new BrokerRuntimeStats(put::get, got::get, now::get, ZoneOffset.UTC);

    private void second(long putDelta, long gotDelta) {
        now.addAndGet(1000);
        put.addAndGet(putDelta);
        got.addAndGet(gotDelta);
        stats.doWork();
    }

    @Test
    void ratesCoverTheLastTenSixtyAndSixHundredSeconds() {
        put.set(1000);
        stats.doWork();
        for (int i = 0; i < 600; i++) {
            second(i < 540 ? 0 : 10, 1);
        }
        // the last 60 s put 10/s, the 540 s before nothing; gets ran at 1/s throughout
        assertEquals("10.00 10.00 1.00", stats.putTps());
        assertEquals("1.00 1.00 1.00", stats.gotTps());
    }

    @Test
    void fewSamplesGiveTheRateSinceTheFirst() {
        assertEquals("0.00 0.00 0.00", stats.putTps());
        stats.doWork();
        second(4, 0);
        second(4, 0);
        assertEquals("4.00 4.00 4.00", stats.putTps());
    }

    @Test
    void dailyTotalsRollAtLocalMidnight() {
        put.set(100);
        got.set(40);
        stats.doWork();
        assertEquals(100, stats.putTodayMorning());
        assertEquals(100, stats.putYesterdayMorning());
        put.set(150);
        now.addAndGet(3_600_000);   // past midnight
        stats.doWork();
        assertEquals(100, stats.putYesterdayMorning());
        assertEquals(150, stats.putTodayMorning());
        assertEquals(40, stats.gotTodayMorning());
        put.set(180);
        stats.doWork();
        assertEquals(150, stats.putTodayMorning());
        assertEquals(180, stats.putTodayNow());
    }

    @Test
    void runtimeAndSizesReadLikeRocketMqs() {
        assertEquals("[ 1 days, 2 hours, 3 minutes, 4 seconds ]",
            BrokerRuntimeInfoProcessor.runtime(((26 * 60 + 3) * 60 + 4) * 1000L));
        assertEquals("512 B", BrokerRuntimeInfoProcessor.humanReadable(512));
        assertEquals("1.5 KiB", BrokerRuntimeInfoProcessor.humanReadable(1536));
        assertEquals("2.0 GiB", BrokerRuntimeInfoProcessor.humanReadable(2L << 30));
    }
}
