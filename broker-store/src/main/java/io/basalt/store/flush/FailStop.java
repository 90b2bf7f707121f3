package io.basalt.store.flush;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's write-failure latch. An {@link IOException} on the write, commit or flush path is fatal
 * to writes: the first {@link #fail} turns the store read-only for good, logs one ERROR line with
 * the operation, file and offset, and runs the registered listeners (which fail pending futures).
 * Nothing clears it: after a failed fsync the kernel may report later ones as successful although
 * the data is gone, so no flushed position may advance again in this process. Thread-safe.
 */
public final class FailStop {
    private static final Logger LOG = LoggerFactory.getLogger(FailStop.class);

    private final AtomicReference<IOException> cause = new AtomicReference<>();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    /** Runs {@code listener} on the failing thread when the store fails (at once if it already has). */
    public void onFailure(Runnable listener) {
        listeners.add(listener);
        if (failed()) {
            listener.run();
        }
    }

    public boolean failed() {
        return cause.get() != null;
    }

    /** The first failure, or null. */
    public IOException cause() {
        return cause.get();
    }

    /**
     * Records a write-path failure. Only the first call logs and notifies; returns true for it.
     *
     * @param operation what failed, e.g. "force", "commit", "append"
     * @param file      the file involved
     * @param offset    the global offset the operation started from
     */
    public boolean fail(String operation, String file, long offset, IOException e) {
        if (!cause.compareAndSet(null, e)) {
            return false;
        }
        LOG.error("CommitLog is now read-only: {} failed on file {} at offset {}: {}", operation, file,
            offset, e.toString());
        for (Runnable listener : listeners) {
            listener.run();
        }
        return true;
    }
}
