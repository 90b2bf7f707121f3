package io.basalt.store.recovery;

import java.io.IOException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.store.service.ServiceThread;

/**
 * Writes the checkpoint while the store runs, at most once per interval and only when a value
 * changed, so the recovery offset on disk trails the flushed offset by about one interval and a
 * crash recovery scans little (pain point: restarts that rescan hours of log). Without it the
 * checkpoint would reach the disk only at shutdown and after recovery.
 *
 * <p>A failed write is logged and retried next interval: the file then keeps the previous
 * checkpoint, an older and therefore still safe recovery point. Stop this service before closing
 * the checkpoint.
 */
public final class CheckpointFlushService extends ServiceThread {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointFlushService.class);

    private final StoreCheckpoint checkpoint;
    private final long intervalMs;
    private boolean failing;

    public CheckpointFlushService(StoreCheckpoint checkpoint, long intervalMs) {
        super("StoreCheckpointFlushService");
        if (intervalMs <= 0) {
            throw new IllegalArgumentException("checkpoint flush interval must be positive, got " + intervalMs);
        }
        this.checkpoint = checkpoint;
        this.intervalMs = intervalMs;
    }

    /** Flushes the checkpoint if it changed; always 0, so the next round waits a full interval. */
    @Override
    protected int doWork() {
        try {
            checkpoint.flushIfChanged();
            if (failing) {
                LOG.info("checkpoint {} written again", checkpoint.file());
                failing = false;
            }
        } catch (IOException e) {
            if (!failing) {
                LOG.error("checkpoint {} could not be written, the previous one stays in force: {}",
                    checkpoint.file(), e.toString());
                failing = true;
            }
        }
        return 0;
    }

    @Override
    protected long idleWaitMs() {
        return intervalMs;
    }
}
