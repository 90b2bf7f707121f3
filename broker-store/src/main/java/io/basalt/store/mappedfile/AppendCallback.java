package io.basalt.store.mappedfile;

import java.nio.ByteBuffer;

/**
 * Encodes one append in place, straight into the file (or its write buffer), so a record is never
 * copied twice. Called by {@link MappedFile#append(AppendCallback)} on the appending thread.
 */
@FunctionalInterface
public interface AppendCallback {
    /**
     * Writes the bytes of one append into {@code target}.
     *
     * @param writeOffset global offset of {@code target}'s position 0
     * @param target      position 0 is the file's wrotePosition, limit is the room left in the file;
     *                    valid only during this call
     * @return the number of bytes written from position 0; the file's wrotePosition advances by it
     */
    int doAppend(long writeOffset, ByteBuffer target);
}
