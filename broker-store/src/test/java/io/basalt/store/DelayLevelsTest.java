package io.basalt.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** messageDelayLevel as RocketMQ parses it, with errors that name the malformed token. */
class DelayLevelsTest {

    @Test
    void rocketMqsDefaultHasEighteenLevelsFromOneSecondToTwoHours() {
        DelayLevels levels = DelayLevels.defaults();
        assertEquals(18, levels.maxLevel());
        assertEquals(1_000, levels.delayMillis(1));
        assertEquals(30_000, levels.delayMillis(4));
        assertEquals(60_000, levels.delayMillis(5));
        assertEquals(1_200_000, levels.delayMillis(15));
        assertEquals(7_200_000, levels.delayMillis(18));
    }

    @Test
    void everyUnitIsRead() {
        DelayLevels levels = DelayLevels.parse("2s 3m 4h 1d");
        assertEquals(4, levels.maxLevel());
        assertEquals(2_000, levels.delayMillis(1));
        assertEquals(180_000, levels.delayMillis(2));
        assertEquals(14_400_000, levels.delayMillis(3));
        assertEquals(86_400_000, levels.delayMillis(4));
    }

    @Test
    void aMalformedTokenIsNamed() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DelayLevels.parse("1s 5x"))
            .getMessage().contains("level 2 token '5x'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DelayLevels.parse("1s ms"))
            .getMessage().contains("'ms'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DelayLevels.parse("1s  5s"))
            .getMessage().contains("exactly one space"), "a double space is an empty token, as in RocketMQ");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DelayLevels.parse("1s -5s"))
            .getMessage().contains("'-5s'"));
        assertThrows(IllegalArgumentException.class, () -> DelayLevels.parse(""));
    }

    @Test
    void theDeliverTimeClampsTheLevelToTheMaximumAndGivesOneSecondWithoutALevel() {
        DelayLevels levels = DelayLevels.parse("1s 2s 3s");
        assertEquals(1000 + 2000, levels.deliverTimestamp(2, 1000));
        assertEquals(1000 + 3000, levels.deliverTimestamp(9, 1000), "above the maximum: the maximum");
        assertEquals(1000 + 1000, levels.deliverTimestamp(0, 1000), "no level: RocketMQ's store time + 1 s");
        assertEquals(3, levels.clamp(7));
        assertEquals(0, DelayLevels.queueId(1));
        assertEquals(18, DelayLevels.level(17));
    }
}
