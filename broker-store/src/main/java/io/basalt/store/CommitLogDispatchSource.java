package io.basalt.store;

import java.nio.ByteBuffer;
import java.util.function.LongSupplier;

import io.basalt.store.commitlog.CommitLog;
import io.basalt.store.queue.DispatchSource;
import io.basalt.store.recovery.RecoveryResult;
import io.basalt.store.recovery.SkippedRange;

/**
 * The CommitLog as the dispatcher reads it. Recovering, it dispatches the whole recovered log (what is
 * on disk); running, only up to the flush policy's limit (under SYNC_FLUSH, what force() covered).
 */
final class CommitLogDispatchSource implements DispatchSource {
    private final CommitLog commitLog;
    private final boolean recovering;
    private final LongSupplier replicationLimit;

    /** @param replicationLimit a further bound while running (replication's confirmOffset), Long.MAX_VALUE for none */
    CommitLogDispatchSource(CommitLog commitLog, boolean recovering, LongSupplier replicationLimit) {
        this.commitLog = commitLog;
        this.recovering = recovering;
        this.replicationLimit = replicationLimit;
    }

    @Override
    public long dispatchLimit() {
        return recovering ? commitLog.maxOffset() : Math.min(commitLog.dispatchLimit(), replicationLimit.getAsLong());
    }

    @Override
    public long minOffset() {
        return commitLog.minOffset();
    }

    @Override
    public long nextFileOffset(long offset) {
        return commitLog.rollNextFile(offset);
    }

    @Override
    public long skipCorrupt(long offset) {
        RecoveryResult recovered = commitLog.recoveryResult();
        if (recovered != null) {
            for (SkippedRange r : recovered.skipped()) {
                if (r.from() == offset) {
                    return r.to();
                }
            }
        }
        return offset;
    }

    @Override
    public View read(long offset) {
        SelectedBuffer b = commitLog.select(offset);
        if (b == null) {
            return null;
        }
        return new View() {
            @Override
            public ByteBuffer buffer() {
                return b.buffer().duplicate();
            }

            @Override
            public void close() {
                b.release();
            }
        };
    }
}
