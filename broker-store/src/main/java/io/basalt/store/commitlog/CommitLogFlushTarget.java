package io.basalt.store.commitlog;

import java.io.IOException;

import io.basalt.store.flush.FlushTarget;
import io.basalt.store.mappedfile.MappedFile;
import io.basalt.store.mappedfile.MappedFileQueue;

/**
 * The CommitLog's files as a {@link FlushTarget}: commit and flush run across file boundaries until
 * nothing more moves. After a commit that moved bytes with a transient store pool, {@code onCommitted}
 * runs (readers only see committed bytes).
 * After a flush that moved, {@code onFlushed} learns the new durable offset (the checkpoint's recovery
 * point) and, for a thorough flush, the store timestamp of the last durable file (physicMsgTimestamp).
 */
final class CommitLogFlushTarget implements FlushTarget {
    /** Told what a flush made durable: the flushed offset, and the store timestamp after a thorough flush. */
    @FunctionalInterface
    interface FlushedListener {
        void onFlushed(long flushedOffset, long storeTimestampOrZero);
    }

    private final MappedFileQueue files;
    private final boolean writeBuffered;
    private final Runnable onCommitted;
    private final FlushedListener onFlushed;

    CommitLogFlushTarget(MappedFileQueue files, boolean writeBuffered, Runnable onCommitted,
                         FlushedListener onFlushed) {
        this.files = files;
        this.writeBuffered = writeBuffered;
        this.onCommitted = onCommitted;
        this.onFlushed = onFlushed;
    }

    @Override
    public long commit(int leastPages) throws IOException {
        if (!writeBuffered) {
            return files.appendedOffset();
        }
        boolean moved = false;
        while (files.commit(leastPages)) {
            moved = true;
        }
        if (moved) {
            onCommitted.run();
        }
        return files.committedOffset();
    }

    /**
     * One pass: on to the next file only when a force took the current one to its end. Going round again for the
     * bytes appended during a force would chase the writer, forcing the folio it is filling again and again
     * ({@link MappedFile#flush(int)}).
     */
    @Override
    public long flush(int leastPages) throws IOException {
        boolean moved = false;
        while (files.flush(leastPages)) {
            moved = true;
            if (files.flushedOffset() % files.fileSize() != 0) {
                break;
            }
        }
        if (moved) {
            onFlushed.onFlushed(files.flushedOffset(), leastPages == 0 ? files.storeTimestamp() : 0);
        }
        return files.flushedOffset();
    }

    @Override
    public long flushedOffset() {
        return files.flushedOffset();
    }

    @Override
    public long committedOffset() {
        return writeBuffered ? files.committedOffset() : files.appendedOffset();
    }

    @Override
    public long appendedOffset() {
        return files.appendedOffset();
    }

    @Override
    public String fileAt(long offset) {
        MappedFile file = files.findFileByOffset(offset, true);
        return file == null ? files.dir().toString() : file.path().toString();
    }
}
