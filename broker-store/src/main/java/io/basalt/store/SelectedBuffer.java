package io.basalt.store;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A read-only view of {@code [startOffset, startOffset + size)} of one store file. While it is held
 * the file stays mapped, even if it is destroyed meanwhile; {@link #release()} (or {@link #close()})
 * lets it go. Release exactly once per selection; a second call does nothing. The buffer must not be
 * used after release.
 */
public final class SelectedBuffer implements AutoCloseable {

    /** What a selection holds a reference on: the mapped file it is a view of. */
    public interface Owner {
        /** Gives back the reference the selection took. */
        void release();
    }

    private final Owner owner;
    private final long startOffset;
    private final ByteBuffer buffer;
    private final int size;
    private final AtomicBoolean released = new AtomicBoolean();

    /** For the store's files: {@code owner} has been held once for this selection. */
    public SelectedBuffer(Owner owner, long startOffset, ByteBuffer buffer) {
        this.owner = owner;
        this.startOffset = startOffset;
        this.buffer = buffer;
        this.size = buffer.remaining();
    }

    /** Global offset of the buffer's position 0. */
    public long startOffset() {
        return startOffset;
    }

    public int size() {
        return size;
    }

    /** The read-only bytes, position 0 to limit {@link #size()} as selected; the caller may move them. */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** What this selection holds (the mapped file). */
    public Owner owner() {
        return owner;
    }

    public void release() {
        if (released.compareAndSet(false, true)) {
            owner.release();
        }
    }

    @Override
    public void close() {
        release();
    }
}
