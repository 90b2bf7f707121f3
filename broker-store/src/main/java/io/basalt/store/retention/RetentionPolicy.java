package io.basalt.store.retention;

import io.basalt.store.StoreConfig;

import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/**
 * When CommitLog files may be deleted, and when the disk is too full to accept writes; RocketMQ's
 * rules and thresholds in one place, as pure functions of the time and the disk usage.
 *
 * <ul>
 *   <li>A file is <em>expired</em> when its last modification is {@code fileReservedTime} hours ago.</li>
 *   <li>Expired files are deleted at the hours of {@code deleteWhen} ("04", or "03;04"), and at any
 *       hour when the disk is used above {@code diskMaxUsedSpaceRatio} % (clamped to [10, 95]).</li>
 *   <li>Above {@code diskSpaceCleanForciblyRatio} % (85, clamped to [30, 85]) files are deleted
 *       oldest first whatever their age ("clean immediately", if {@code cleanFileForciblyEnable}).</li>
 *   <li>Above {@code diskSpaceWarningLevelRatio} % (90, clamped to [35, 90]) the disk is full: puts
 *       fail fast. It stays full until usage falls to the forcible-clean ratio or below, so that the
 *       flag does not flap around one threshold (docs/pain-points.md#pp-10).</li>
 * </ul>
 * Never the newest file, never a file a reader holds: those are the file queue's rules.
 */
public final class RetentionPolicy {
    private final long fileReservedTimeMs;
    private final int[] deleteHours;
    private final double maxUsedRatio;
    private final double cleanForciblyRatio;
    private final double warningRatio;
    private final boolean cleanFileForciblyEnable;

    /**
     * @param fileReservedTimeHours       RocketMQ's {@code fileReservedTime} (72)
     * @param deleteWhen                  RocketMQ's {@code deleteWhen} (";"-separated hours, "04")
     * @param diskMaxUsedSpaceRatio       percent (75)
     * @param diskSpaceCleanForciblyRatio percent (85)
     * @param diskSpaceWarningLevelRatio  percent (90)
     * @param cleanFileForciblyEnable     delete unexpired files when above the forcible ratio (true)
     */
    public RetentionPolicy(int fileReservedTimeHours, String deleteWhen, int diskMaxUsedSpaceRatio,
                           int diskSpaceCleanForciblyRatio, int diskSpaceWarningLevelRatio,
                           boolean cleanFileForciblyEnable) {
        if (fileReservedTimeHours <= 0) {
            throw new IllegalArgumentException("fileReservedTime must be > 0 hours: " + fileReservedTimeHours);
        }
        this.fileReservedTimeMs = fileReservedTimeHours * 3_600_000L;
        this.deleteHours = parseHours(deleteWhen);
        this.maxUsedRatio = clamp(diskMaxUsedSpaceRatio, 10, 95) / 100.0;
        this.cleanForciblyRatio = clamp(diskSpaceCleanForciblyRatio, 30, 85) / 100.0;
        this.warningRatio = clamp(diskSpaceWarningLevelRatio, 35, 90) / 100.0;
        this.cleanFileForciblyEnable = cleanFileForciblyEnable;
    }

    /** The policy of the store's retention keys. */
    public static RetentionPolicy of(StoreConfig config) {
        return new RetentionPolicy(config.fileReservedTime(), config.deleteWhen(), config.diskMaxUsedSpaceRatio(),
            config.diskSpaceCleanForciblyRatio(), config.diskSpaceWarningLevelRatio(), config.cleanFileForciblyEnable());
    }

    private static int clamp(int v, int min, int max) {
        return Math.max(min, Math.min(max, v));
    }

    private static int[] parseHours(String deleteWhen) {
        List<Integer> hours = new ArrayList<>();
        for (String part : deleteWhen.split(";")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            int h;
            try {
                h = Integer.parseInt(p);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("deleteWhen=" + deleteWhen + ": '" + p + "' is not an hour");
            }
            if (h < 0 || h > 23) {
                throw new IllegalArgumentException("deleteWhen=" + deleteWhen + ": hour " + h + " not in 0..23");
            }
            hours.add(h);
        }
        return hours.stream().mapToInt(Integer::intValue).toArray();
    }

    public long fileReservedTimeMs() {
        return fileReservedTimeMs;
    }

    public double warningRatio() {
        return warningRatio;
    }

    public double cleanForciblyRatio() {
        return cleanForciblyRatio;
    }

    public double maxUsedRatio() {
        return maxUsedRatio;
    }

    /** True if {@code lastModifiedMs} is at least fileReservedTime before {@code nowMs}. */
    public boolean isExpired(long lastModifiedMs, long nowMs) {
        return nowMs - lastModifiedMs >= fileReservedTimeMs;
    }

    /** True during an hour listed in deleteWhen, in {@code zone}. */
    public boolean isDeleteHour(long nowMs, ZoneId zone) {
        int hour = Instant.ofEpochMilli(nowMs).atZone(zone).getHour();
        for (int h : deleteHours) {
            if (h == hour) {
                return true;
            }
        }
        return false;
    }

    /** Whether the disk is full after observing {@code usedRatio}, given whether it was full before. */
    public boolean diskFull(double usedRatio, boolean wasFull) {
        if (usedRatio > warningRatio) {
            return true;
        }
        return wasFull && usedRatio > cleanForciblyRatio;
    }

    /** What a cleaning round should do now. */
    public Decision decide(long nowMs, ZoneId zone, double usedRatio) {
        boolean forcibly = cleanFileForciblyEnable && usedRatio > cleanForciblyRatio;
        if (forcibly) {
            return new Decision(true, true, String.format("disk %.1f%% used > diskSpaceCleanForciblyRatio %.0f%%",
                    usedRatio * 100, cleanForciblyRatio * 100));
        }
        if (usedRatio > maxUsedRatio) {
            return new Decision(true, false, String.format("disk %.1f%% used > diskMaxUsedSpaceRatio %.0f%%",
                    usedRatio * 100, maxUsedRatio * 100));
        }
        if (isDeleteHour(nowMs, zone)) {
            return new Decision(true, false, "deleteWhen hour");
        }
        return new Decision(false, false, "nothing due");
    }

    /**
     * @param deleteExpired    delete files older than fileReservedTime
     * @param cleanImmediately delete files oldest first regardless of age
     * @param reason           why, for the log
     */
    public record Decision(boolean deleteExpired, boolean cleanImmediately, String reason) {
    }
}
