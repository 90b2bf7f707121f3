package io.basalt.common.service;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A named background thread that runs {@link #doWork()} in a loop (Agrona's {@code AgentRunner} for
 * Basalt). When a round did no work the thread waits up to {@link #idleWaitMs()} or until
 * {@link #wakeup()} is called, whichever is first. A wakeup that arrives while {@code doWork()} runs
 * is not lost: the next wait returns at once. A service paced by its interval rather than by work
 * ({@link #waitsAfterEveryRound()}) waits after every round, however much it did.
 *
 * <p><b>Errors.</b> An exception from {@code doWork()} never ends the thread quietly: it is counted
 * ({@link #errorCount()}), handed to the service's {@link ErrorPolicy}, and the loop goes on after a
 * back-off that doubles from {@value #FIRST_BACKOFF_MS} ms up to {@value #MAX_BACKOFF_MS} ms and
 * resets after a clean round; wakeups do not shorten it, only {@link #shutdown()} does. An
 * {@link Error} (OutOfMemoryError, say) is counted and given to the policy too, then ends the thread
 * with it: {@link #isStopped()} turns true and {@link #terminalError()} says why. An
 * InterruptedException ends the loop with the interrupt flag restored.
 *
 * <p><b>Wakeups are cheap for the caller.</b> The put path wakes the reput, group-commit and HA services once per
 * message, so {@link #wakeup()} takes no lock: it sets a pending flag and unparks the thread only if that flag was
 * clear and the thread is parked waiting for it (a Dekker handshake on two volatiles: the waiter announces itself,
 * then looks at the flag; the waker sets the flag, then looks for a waiter — at least one of them sees the other).
 * A wakeup that finds one already pending, or the thread at work, costs one atomic exchange and no system call.
 * A service may also {@link #pauseAfterWorkNanos() pause after a round that did work}: wakeups during the pause
 * only mark work pending, so a busy service runs a batch per pause instead of one round (and one context switch)
 * per wakeup.
 *
 * <p>Subclasses keep their loop body in {@code doWork()} so tests can drive it directly without a
 * thread (an exception then reaches the test, not the policy). {@link #onShutdown()} runs on the
 * service thread after the loop ends, for a final drain.
 *
 * <p>{@link #start()} and {@link #shutdown()} may be called from any thread, each at most once
 * taking effect; {@code shutdown()} waits for the thread to finish.
 */
public abstract class ServiceThread implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(ServiceThread.class);
    static final long FIRST_BACKOFF_MS = 10;
    static final long MAX_BACKOFF_MS = 1000;

    private final String name;
    private final ErrorPolicy errorPolicy;
    private final AtomicBoolean wakeupPending = new AtomicBoolean();
    /** The thread parked in {@link #waitForWakeup} or {@link #backOff}, or null: whom a wakeup must unpark. */
    private volatile Thread parkedWaiter;
    private volatile boolean stopped;
    private volatile boolean shutdownCalled;
    private volatile Throwable terminalError;
    /** Written by the service thread only. */
    private volatile long errors;
    private long backoffMs;
    private Thread thread;

    /**
     * @param name        the thread's name (RocketMQ's service names, operators see them)
     * @param errorPolicy what an unexpected error of a round does beyond being counted
     */
    protected ServiceThread(String name, ErrorPolicy errorPolicy) {
        this.name = name;
        this.errorPolicy = errorPolicy;
    }

    /** One round of work; returns how much was done (0 means idle, so the thread may wait). */
    protected abstract int doWork() throws Exception;

    /** How long an idle round waits for a wakeup, in milliseconds. */
    protected abstract long idleWaitMs();

    /**
     * True for a service that runs once per interval whatever a round did (the periodic flushers and
     * cleaners); false (the default) for one that loops again at once while there is work.
     */
    protected boolean waitsAfterEveryRound() {
        return false;
    }

    /**
     * How long the thread pauses after a round that did work before it runs the next, in nanoseconds; 0 (the
     * default) runs the next round at once. Wakeups do not end the pause (shutdown does not either; keep it short):
     * they leave work pending for the round after it. For a service woken per message whose consumers can take a
     * short delay (RocketMQ's reput loop sleeps 1 ms between rounds), this turns a context switch per wakeup into
     * one per pause.
     */
    protected long pauseAfterWorkNanos() {
        return 0;
    }

    /** Runs once on the service thread after the loop stops; the default does nothing. */
    protected void onShutdown() throws Exception {
    }

    /**
     * Runs once on the thread calling {@link #shutdown()}, after the loop was told to stop and before shutdown waits
     * for it: a service whose round may be blocked in a call that is no longer wanted (a request to a peer that does
     * not answer) cuts it short here. Must not throw; the default does nothing.
     */
    protected void onShutdownRequested() {
    }

    public final String name() {
        return name;
    }

    public final synchronized void start() {
        if (thread != null) {
            return;
        }
        thread = new Thread(this, name);
        thread.setDaemon(true);
        thread.start();
        LOG.info("{} started", name);
    }

    /** Stops the loop, wakes the thread and waits for it to run {@link #onShutdown()} and exit. */
    public final void shutdown() {
        Thread t;
        synchronized (this) {
            if (shutdownCalled) {
                return;
            }
            shutdownCalled = true;
            stopped = true;
            t = thread;
        }
        // not wakeup(): one already pending unparks nobody, and a back-off does not end on one
        wakeupPending.set(true);
        unparkWaiter();
        try {
            onShutdownRequested();
        } catch (RuntimeException e) {
            LOG.warn("{}: cutting its round short failed: {}", name, e.toString());
        }
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        LOG.info("{} stopped", name);
    }

    /** True once {@link #shutdown()} was called or the thread has ended (an {@link Error}, an interrupt). */
    public final boolean isStopped() {
        return stopped;
    }

    /** The Error that ended the thread, or null. */
    public final Throwable terminalError() {
        return terminalError;
    }

    /** Unexpected errors of this service's rounds so far (a metric). */
    public final long errorCount() {
        return errors;
    }

    /** Ends the current or next idle wait early. Lock-free; any thread. */
    public final void wakeup() {
        if (!wakeupPending.getAndSet(true)) {
            unparkWaiter();
        }
    }

    /**
     * True while a wakeup is pending (the next idle wait returns at once): a caller with a costly check before its
     * {@link #wakeup()} can skip both.
     */
    protected final boolean isWakeupPending() {
        return wakeupPending.get();
    }

    private void unparkWaiter() {
        Thread waiter = parkedWaiter;
        if (waiter != null) {
            LockSupport.unpark(waiter);
        }
    }

    /**
     * Waits up to {@code timeoutMs} for a wakeup; returns at once if one arrived since the last wait.
     * Returns false if interrupted (the interrupt flag is restored).
     */
    protected final boolean waitForWakeup(long timeoutMs) {
        try {
            return parkUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs), true);
        } finally {
            wakeupPending.set(false);
        }
    }

    /**
     * Parks until {@code deadlineNs} ({@code System.nanoTime()}), shutdown, or — {@code forWakeup} — a wakeup. False if
     * interrupted (the flag is restored).
     */
    private boolean parkUntil(long deadlineNs, boolean forWakeup) {
        while (!(forWakeup && wakeupPending.get()) && !stopped) {
            long remainingNs = deadlineNs - System.nanoTime();
            if (remainingNs <= 0) {
                break;
            }
            if (!parkUnlessWoken(remainingNs, forWakeup)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Parks this thread up to {@code ns} as the waiter a wakeup unparks, unless a wakeup is already pending
     * ({@code forWakeup}) or shutdown was called. False if interrupted (the flag is restored).
     */
    private boolean parkUnlessWoken(long ns, boolean forWakeup) {
        parkedWaiter = Thread.currentThread();
        try {
            // announced first, checked second: a wakeup or shutdown from now on either is seen here or unparks us
            if ((forWakeup && wakeupPending.get()) || stopped) {
                return true;
            }
            LockSupport.parkNanos(this, ns);
        } finally {
            parkedWaiter = null;
        }
        if (Thread.interrupted()) {
            Thread.currentThread().interrupt();
            return false;
        }
        return true;
    }

    /** Waits {@code ms} after a failed round; only shutdown ends it early. False if interrupted. */
    private boolean backOff(long ms) {
        return parkUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms), false);
    }

    /**
     * The pause after a round that did work: wakeups meanwhile stay pending. False if interrupted. Unlike
     * {@link #parkUntil} it does not announce the thread as the waiter, so a wakeup never unparks it: the first
     * wakeup after a round that took all pending work would otherwise cut every pause short.
     */
    private boolean pause(long ns) {
        long deadline = System.nanoTime() + ns;
        long remainingNs;
        while (!stopped && (remainingNs = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(this, remainingNs);
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    @Override
    public final void run() {
        try {
            loop();
        } finally {
            // whatever ended the loop, the service no longer runs: callers that check isStopped() fail fast
            stopped = true;
        }
    }

    private void loop() {
        try {
            while (!stopped) {
                int work;
                try {
                    work = doWork();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (Exception e) {
                    handle(e);
                    backoffMs = backoffMs == 0 ? FIRST_BACKOFF_MS : Math.min(MAX_BACKOFF_MS, backoffMs * 2);
                    // a periodic service never retries sooner than its interval would have run it
                    long waitMs = waitsAfterEveryRound() ? Math.max(backoffMs, idleWaitMs()) : backoffMs;
                    if (!backOff(waitMs)) {
                        return;
                    }
                    continue;
                }
                backoffMs = 0;
                if (work == 0 || waitsAfterEveryRound()) {
                    if (!waitForWakeup(idleWaitMs())) {
                        return;
                    }
                } else {
                    long pauseNs = pauseAfterWorkNanos();
                    if (pauseNs > 0 && !pause(pauseNs)) {
                        return;
                    }
                }
            }
            try {
                onShutdown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                handle(e);
            }
        } catch (Error e) {
            terminalError = e;
            stopped = true;
            try {
                handle(e);
            } finally {
                LOG.error("{} ended by {}", name, e.toString());
            }
            throw e;
        }
    }

    private void handle(Throwable error) {
        errors++;
        try {
            errorPolicy.onError(this, error);
        } catch (RuntimeException policyFailure) {
            LOG.error("{}: its error policy failed on {}", name, error.toString(), policyFailure);
        }
    }
}
