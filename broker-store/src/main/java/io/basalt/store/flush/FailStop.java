package io.basalt.store.flush;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.common.service.ErrorPolicy;
import io.basalt.common.service.ServiceThread;

/**
 * The store's write-failure latch. An {@link IOException} on the write, commit or flush path is fatal
 * to writes, and so is an unexpected error of a durability-critical service (group commit, flush,
 * commit, dispatch, HA replica wait: this class is their {@link ErrorPolicy}). The first {@link #fail}
 * turns the store read-only for good, logs one ERROR line naming the service and what failed, and runs
 * the registered listeners (which fail pending futures). Later failures are only counted by their
 * services. Nothing clears it: after a failed fsync the kernel may report later ones as successful
 * although the data is gone, so no flushed position may advance again in this process. Thread-safe.
 */
public final class FailStop implements ErrorPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(FailStop.class);

    private final AtomicReference<Throwable> cause = new AtomicReference<>();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private volatile String failedService;

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
    public Throwable cause() {
        return cause.get();
    }

    /** The service whose failure tripped the latch, or null. */
    public String failedService() {
        return failedService;
    }

    /**
     * Records a write-path I/O failure. Only the first call logs and notifies; returns true for it.
     *
     * @param operation what failed, e.g. "force", "commit", "append"
     * @param file      the file involved
     * @param offset    the global offset the operation started from
     */
    public boolean fail(String operation, String file, long offset, IOException e) {
        if (!trip(Thread.currentThread().getName(), e)) {
            return false;
        }
        LOG.error("CommitLog is now read-only: {} failed on file {} at offset {} in {}: {}", operation, file,
            offset, failedService, e.toString());
        notifyListeners();
        return true;
    }

    /**
     * Records an unexpected error of the durability-critical service {@code service}. Only the first
     * call logs (with the stack trace) and notifies; returns true for it.
     */
    public boolean fail(String service, Throwable error) {
        if (!trip(service, error)) {
            return false;
        }
        LOG.error("CommitLog is now read-only: {} failed unexpectedly", service, error);
        notifyListeners();
        return true;
    }

    /** {@link ErrorPolicy}: a durability-critical service's unexpected error trips the latch. */
    @Override
    public void onError(ServiceThread service, Throwable error) {
        fail(service.name(), error);
    }

    private boolean trip(String service, Throwable error) {
        if (!cause.compareAndSet(null, error)) {
            return false;
        }
        failedService = service;
        return true;
    }

    private void notifyListeners() {
        for (Runnable listener : listeners) {
            listener.run();
        }
    }
}
