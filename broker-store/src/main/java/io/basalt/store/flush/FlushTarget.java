package io.basalt.store.flush;

import java.io.IOException;

/**
 * What the flush services act on: the CommitLog's files seen as one global byte space with three
 * marks, {@code flushedOffset() <= committedOffset() <= appendedOffset()}.
 *
 * <p>Contract: {@link #flush(int)} advances {@link #flushedOffset()} only after force() returned
 * successfully for those bytes; an {@link IOException} leaves it where it was. Calls to
 * {@link #commit(int)} and {@link #flush(int)} come from one service thread at a time.
 */
public interface FlushTarget {

    /**
     * Writes appended bytes still held in a write buffer (transient store pool) to the file channel,
     * when at least {@code leastPages} 4 KiB pages are pending (0 = any byte). Without a write
     * buffer this does nothing. Returns the committed offset afterwards.
     */
    long commit(int leastPages) throws IOException;

    /**
     * Forces committed bytes to the disk when at least {@code leastPages} pages are dirty (0 = any
     * byte), across as many files as needed. Returns the flushed offset afterwards.
     */
    long flush(int leastPages) throws IOException;

    /** End of the bytes force() has made durable. */
    long flushedOffset();

    /** End of the bytes written to the file channel or mapping (readers may see them). */
    long committedOffset();

    /** End of the appended bytes. */
    long appendedOffset();

    /** The file holding {@code offset}, for error messages. */
    String fileAt(long offset);
}
