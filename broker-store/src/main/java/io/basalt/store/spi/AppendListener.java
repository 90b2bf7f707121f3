package io.basalt.store.spi;

import io.basalt.store.commitlog.CommitLog;

/**
 * Told when new CommitLog bytes became readable, e.g. to wake the dispatcher (ReputMessageService).
 * Called on the appending thread after the put lock is released, or on the commit thread when a
 * transient store pool is used (readers only see committed bytes). Must be quick and must not block.
 */
@FunctionalInterface
public interface AppendListener {
    /** {@code maxReadableOffset}: the CommitLog offset readers may read up to (exclusive). */
    void onAppend(long maxReadableOffset);
}
