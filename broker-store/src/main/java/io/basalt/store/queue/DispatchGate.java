package io.basalt.store.queue;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's rule "dispatch has failed → puts are refused": once the dispatcher stopped (an alarm set by a
 * record it could not write into its consume queue or index, such as "Too many open files" while creating a
 * queue file, or its thread ended by an {@link Error}), a put would be acknowledged and never readable, so it
 * is refused instead (SERVICE_NOT_AVAILABLE, with {@link #reason()} as the remark) for as long as dispatch
 * stays stopped. The put that revealed it is logged once; every refusal is counted ({@link #refusals()}).
 *
 * <p>Threads: {@link #refuses()} on put threads; it only reads the dispatcher's volatile state.
 */
public final class DispatchGate {
    private static final Logger LOG = LoggerFactory.getLogger(DispatchGate.class);

    private final Supplier<ReputMessageService> dispatcher;
    private final AtomicLong refusals = new AtomicLong();
    private volatile String loggedReason;

    /** @param dispatcher the current dispatcher (the store replaces it when it truncates or deletes topics) */
    public DispatchGate(Supplier<ReputMessageService> dispatcher) {
        this.dispatcher = dispatcher;
    }

    /** True when a put must be refused because what it writes would not reach the consume queues. */
    public boolean refuses() {
        String why = reason();
        if (why == null) {
            return false;
        }
        refusals.incrementAndGet();
        if (!why.equals(loggedReason)) {
            loggedReason = why;
            LOG.error("[ALARM] refusing puts (SERVICE_NOT_AVAILABLE) until dispatch runs again: {}", why);
        }
        return true;
    }

    /** Why dispatch does not run (puts refused), or null while it runs. */
    public String reason() {
        ReputMessageService r = dispatcher.get();
        if (r == null) {
            return null;
        }
        String alarm = r.alarm();
        if (alarm != null) {
            return alarm;
        }
        Throwable died = r.terminalError();
        return died == null ? null : "the dispatcher thread ended: " + died;
    }

    /** Puts refused so far because dispatch had stopped (a metric). */
    public long refusals() {
        return refusals.get();
    }
}
