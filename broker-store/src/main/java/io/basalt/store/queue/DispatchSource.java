package io.basalt.store.queue;

import java.nio.ByteBuffer;

/**
 * What the dispatcher reads: the CommitLog seen through its flush policy. Implemented by the
 * MessageStore over the CommitLog; tests implement it over a buffer.
 */
public interface DispatchSource {
    /** Records that end at or below this offset may be dispatched (see {@link ReputMessageService}). */
    long dispatchLimit();

    /** First offset still in the log. */
    long minOffset();

    /** Start of the file after the one holding {@code offset} (where the dispatcher goes on END_OF_FILE). */
    long nextFileOffset(long offset);

    /**
     * A read-only view of the readable bytes from {@code offset} to the end of what its file holds,
     * or null if no file holds {@code offset}. The view keeps the file readable until closed.
     */
    View read(long offset);

    /**
     * Where dispatch goes on when {@code offset} starts a CommitLog range recovery skipped as corrupt
     * (recoverySkipCorruptRecords): the next valid record; {@code offset} itself otherwise, as always
     * when nothing was skipped.
     */
    default long skipCorrupt(long offset) {
        return offset;
    }

    /** A held slice of one CommitLog file. */
    interface View extends AutoCloseable {
        /** Position 0 is the byte at the offset asked for. */
        ByteBuffer buffer();

        @Override
        void close();
    }
}
