package io.basalt.store.retention;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import io.basalt.common.service.ErrorPolicy;
import io.basalt.common.service.ServiceThread;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The disk watch: samples the usage of the store's partitions on its own thread (not the one busy
 * deleting files, docs/pain-points.md#pp-10) and keeps the "disk full" flag that makes puts fail fast. The flag
 * sets above diskSpaceWarningLevelRatio and clears by itself once usage falls to
 * diskSpaceCleanForciblyRatio; each change is logged once with the path, the usage and the threshold.
 *
 * <p>Resilient ({@link ErrorPolicy#resilient()}): a round that fails unexpectedly is counted and logged,
 * and the flag keeps its last value until a later round samples again.
 *
 * <p>Threads: {@link #doWork()} on the monitor thread (or a test); the getters from any thread.
 */
public final class DiskSpaceMonitor extends ServiceThread {
    private static final Logger LOG = LoggerFactory.getLogger(DiskSpaceMonitor.class);

    private final List<Path> dirs;
    private final DiskUsageSource usage;
    private final RetentionPolicy policy;
    private final long intervalMs;
    private volatile boolean diskFull;
    private volatile double maxUsedRatio;
    private volatile String fullReason = "";

    public DiskSpaceMonitor(List<Path> dirs, DiskUsageSource usage, RetentionPolicy policy, long intervalMs) {
        super("DiskSpaceMonitor", ErrorPolicy.resilient());
        this.dirs = List.copyOf(dirs);
        this.usage = usage;
        this.policy = policy;
        this.intervalMs = intervalMs;
    }

    /** Samples every directory once and updates the flag; returns the directories sampled. */
    @Override
    public int doWork() {
        double max = 0;
        Path fullest = dirs.get(0);
        int sampled = 0;
        for (Path dir : dirs) {
            double ratio;
            try {
                ratio = usage.usedRatio(dir);
            } catch (IOException e) {
                LOG.warn("Cannot read disk usage of {}: {}", dir, e.toString());
                continue;
            }
            sampled++;
            if (ratio > max) {
                max = ratio;
                fullest = dir;
            }
        }
        maxUsedRatio = max;
        boolean full = policy.diskFull(max, diskFull);
        if (full != diskFull) {
            if (full) {
                fullReason = String.format("disk of %s is %.1f%% used, above diskSpaceWarningLevelRatio %.0f%%",
                        fullest, max * 100, policy.warningRatio() * 100);
                LOG.error("Store refuses puts: {}", fullReason);
            } else {
                LOG.info("Store accepts puts again: disk of {} is {}% used, at or below diskSpaceCleanForciblyRatio {}%",
                        fullest, String.format("%.1f", max * 100), String.format("%.0f", policy.cleanForciblyRatio() * 100));
            }
            diskFull = full;
        }
        return sampled;
    }

    @Override
    protected long idleWaitMs() {
        return intervalMs;
    }

    /** One sample per interval. */
    @Override
    protected boolean waitsAfterEveryRound() {
        return true;
    }

    public boolean isDiskFull() {
        return diskFull;
    }

    /** Why puts are refused (empty while the disk is not full). */
    public String fullReason() {
        return diskFull ? fullReason : "";
    }

    /** Usage of the fullest watched partition at the last sample, in [0, 1]. */
    public double maxUsedRatio() {
        return maxUsedRatio;
    }
}
