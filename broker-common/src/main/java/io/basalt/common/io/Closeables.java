package io.basalt.common.io;

import java.io.Closeable;
import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;

/**
 * Closes several things at once the way shutdown must: every one is tried even after one fails,
 * and the first failure is thrown with the later ones attached as suppressed exceptions (as Agrona's
 * {@code CloseHelper.closeAll} does). Nothing here logs; the caller decides what a failure means.
 */
public final class Closeables {
    private Closeables() {
    }

    /** How one item is closed: {@code ConsumeQueueFile::close}, or a flush then a close. */
    @FunctionalInterface
    public interface Closer<T> {
        void close(T item) throws IOException;
    }

    /** Closes every non-null item with {@code closer}; throws the first failure, the others suppressed in it. */
    public static <T> void closeAll(Iterable<? extends T> items, Closer<? super T> closer) throws IOException {
        IOException failure = null;
        for (T item : items) {
            failure = closeOne(item, closer, failure);
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Closes every non-null item; throws the first failure, the others suppressed in it. */
    public static void closeAll(Closeable... items) throws IOException {
        closeAll(Arrays.asList(items), Closeable::close);
    }

    /**
     * Closes every item after {@code primary} already went wrong (an open that failed half-way): each
     * failure to close is attached to {@code primary} as suppressed, so the caller rethrows only that.
     */
    public static <T> void closeAllAfter(Throwable primary, Iterable<? extends T> items, Closer<? super T> closer) {
        Objects.requireNonNull(primary, "primary");
        for (T item : items) {
            IOException failure = closeOne(item, closer, null);
            if (failure != null) {
                primary.addSuppressed(failure);
            }
        }
    }

    private static <T> IOException closeOne(T item, Closer<? super T> closer, IOException failure) {
        if (item == null) {
            return failure;
        }
        try {
            closer.close(item);
        } catch (IOException e) {
            if (failure == null) {
                return e;
            }
            failure.addSuppressed(e);
        }
        return failure;
    }
}
