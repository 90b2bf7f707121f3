package io.basalt.store.mappedfile;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A read-only view of {@code [startOffset, startOffset + size)} of one {@link MappedFile}. While it is
 * held the file stays mapped, even if it is destroyed meanwhile; {@link #release()} (or
 * {@link #close()}) lets it go. Release exactly once per selection; a second call does nothing.
 * The buffer must not be used after release.
 */
public final class SelectedBuffer implements AutoCloseable {
    private final MappedFile file;
    private final long startOffset;
    private final ByteBuffer buffer;
    private final int size;
    private final AtomicBoolean released = new AtomicBoolean();

    SelectedBuffer(MappedFile file, long startOffset, ByteBuffer buffer) {
        this.file = file;
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

    public MappedFile file() {
        return file;
    }

    public void release() {
        if (released.compareAndSet(false, true)) {
            file.release();
        }
    }

    @Override
    public void close() {
        release();
    }
}
