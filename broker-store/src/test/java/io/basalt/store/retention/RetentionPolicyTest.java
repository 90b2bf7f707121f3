package io.basalt.store.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import io.basalt.store.StoreConfig;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RetentionPolicyTest {
    private static final long HOUR = 3_600_000L;
    private final RetentionPolicy policy = RetentionPolicy.of(StoreConfig.builder().build());

    private static long at(int hour) {
        return ZonedDateTime.of(2026, 1, 10, hour, 30, 0, 0, ZoneOffset.UTC).toInstant().toEpochMilli();
    }

    @Test
    void filesExpireAfterFileReservedTime() {
        long now = at(12);
        assertFalse(policy.isExpired(now - 71 * HOUR, now));
        assertTrue(policy.isExpired(now - 72 * HOUR, now));
    }

    @Test
    void expiredFilesGoAtDeleteWhenOrWhenTheDiskPassesTheMaxRatio() {
        assertTrue(policy.decide(at(4), ZoneOffset.UTC, 0.10).deleteExpired());
        assertFalse(policy.decide(at(5), ZoneOffset.UTC, 0.10).deleteExpired());
        RetentionPolicy.Decision space = policy.decide(at(5), ZoneOffset.UTC, 0.76);
        assertTrue(space.deleteExpired());
        assertFalse(space.cleanImmediately());
        assertTrue(space.reason().contains("diskMaxUsedSpaceRatio"), space.reason());
        RetentionPolicy.Decision forced = policy.decide(at(5), ZoneOffset.UTC, 0.86);
        assertTrue(forced.cleanImmediately());
        assertTrue(forced.reason().contains("diskSpaceCleanForciblyRatio"), forced.reason());
        RetentionPolicy noForce = new RetentionPolicy(72, "04", 75, 85, 90, false);
        assertFalse(noForce.decide(at(5), ZoneOffset.UTC, 0.95).cleanImmediately());
    }

    @Test
    void deleteWhenTakesSeveralHoursAndRejectsNonsense() {
        RetentionPolicy p = new RetentionPolicy(1, "03;23", 75, 85, 90, true);
        assertTrue(p.isDeleteHour(at(3), ZoneOffset.UTC));
        assertTrue(p.isDeleteHour(at(23), ZoneOffset.UTC));
        assertFalse(p.isDeleteHour(at(4), ZoneOffset.UTC));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new RetentionPolicy(72, "4am", 75, 85, 90, true));
        assertTrue(e.getMessage().contains("deleteWhen"), e.getMessage());
    }

    @Test
    void ratiosAreClampedAsRocketMqDoes() {
        RetentionPolicy p = new RetentionPolicy(72, "04", 99, 99, 99, true);
        assertEquals(0.95, p.maxUsedRatio(), 1e-9);
        assertEquals(0.85, p.cleanForciblyRatio(), 1e-9);
        assertEquals(0.90, p.warningRatio(), 1e-9);
    }

    @Test
    void diskFullSetsAboveWarningAndClearsOnlyAtTheForcibleRatio(@TempDir Path dir) {
        AtomicReference<Double> used = new AtomicReference<>(0.5);
        DiskSpaceMonitor monitor = new DiskSpaceMonitor(List.of(dir), d -> used.get(), policy, 1000);
        monitor.doWork();
        assertFalse(monitor.isDiskFull());
        used.set(0.91);
        monitor.doWork();
        assertTrue(monitor.isDiskFull());
        assertTrue(monitor.fullReason().contains(dir.toString()) && monitor.fullReason().contains("diskSpaceWarningLevelRatio"),
                monitor.fullReason());
        used.set(0.87);
        monitor.doWork();
        assertTrue(monitor.isDiskFull(), "no flapping between the two thresholds");
        used.set(0.84);
        monitor.doWork();
        assertFalse(monitor.isDiskFull());
        assertEquals("", monitor.fullReason());
    }
}
