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
 * stays stopped. The same holds while the dispatcher pauses on a write it retries (a full disk, no file
 * descriptor left): puts are refused until it has written again. The put that revealed it is logged once
 * per reason; every refusal is counted ({@link #refusals()}).
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
        if (died != null) {
            return "the dispatcher thread ended: " + died;
        }
        // paused, not stopped: it retries the write (a full disk, no file descriptor) and puts resume with it
        String blocked = r.writeBlocked();
        return blocked == null ? null : "dispatch paused: " + blocked;
    }

    /** Puts refused so far because dispatch had stopped (a metric). */
    public long refusals() {
        return refusals.get();
    }
}
