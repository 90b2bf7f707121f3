package io.basalt.common.service;

/**
 * What a {@link ServiceThread} does with an unexpected error from {@link ServiceThread#doWork()} (the
 * role of Agrona's {@code ErrorHandler} for its {@code AgentRunner}). The service has already counted the
 * error ({@link ServiceThread#errorCount()}) when the policy is told; afterwards the loop goes on after
 * a back-off, unless the error is an {@link Error}, which ends the thread once the policy has seen it.
 *
 * <p>Two kinds exist. A durability-critical service (group commit, flush, commit, dispatch, HA
 * replica wait) gets the store's fail-stop: its first error turns the store read-only and fails every
 * waiting put, since a service that silently stopped would leave puts waiting for a timeout.
 * Every other service gets {@link #resilient()}: the error is logged and the service tries again.
 *
 * <p>Called on the service thread only.
 */
@FunctionalInterface
public interface ErrorPolicy {

    /**
     * @param service the service whose round failed
     * @param error   what {@code doWork()} (or {@code onShutdown()}) threw; never an InterruptedException
     */
    void onError(ServiceThread service, Throwable error);

    /**
     * Logs the error (the first with its stack trace, then at most one line every
     * {@value ResilientErrorPolicy#LOG_INTERVAL_MS} ms saying how many followed) and lets the service go on.
     * Returns a new policy each call: each service keeps its own log pacing.
     */
    static ErrorPolicy resilient() {
        return new ResilientErrorPolicy(System::currentTimeMillis);
    }
}
