package io.basalt.common.service;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A named background thread that runs {@link #doWork()} in a loop. When a round did no work the
 * thread waits up to {@link #idleWaitMs()} or until {@link #wakeup()} is called, whichever is first.
 * A wakeup that arrives while {@code doWork()} runs is not lost: the next wait returns at once.
 *
 * <p>Subclasses keep their loop body in {@code doWork()} so tests can drive it directly without a
 * thread. {@link #onShutdown()} runs on the service thread after the loop ends, for a final drain.
 *
 * <p>{@link #start()} and {@link #shutdown()} may be called from any thread, each at most once
 * taking effect; {@code shutdown()} waits for the thread to finish.
 */
public abstract class ServiceThread implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(ServiceThread.class);

    private final String name;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wakeupCondition = lock.newCondition();
    private boolean wakeupPending;
    private volatile boolean stopped;
    private Thread thread;

    protected ServiceThread(String name) {
        this.name = name;
    }

    /** One round of work; returns how much was done (0 means idle, so the thread may wait). */
    protected abstract int doWork() throws Exception;

    /** How long an idle round waits for a wakeup, in milliseconds. */
    protected abstract long idleWaitMs();

    /** Runs once on the service thread after the loop stops; the default does nothing. */
    protected void onShutdown() throws Exception {
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
            if (stopped) {
                return;
            }
            stopped = true;
            t = thread;
        }
        wakeup();
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        LOG.info("{} stopped", name);
    }

    public final boolean isStopped() {
        return stopped;
    }

    /** Ends the current or next idle wait early. */
    public final void wakeup() {
        lock.lock();
        try {
            wakeupPending = true;
            wakeupCondition.signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits up to {@code timeoutMs} for a wakeup; returns at once if one arrived since the last wait.
     * Returns false if interrupted (the interrupt flag is restored).
     */
    protected final boolean waitForWakeup(long timeoutMs) {
        lock.lock();
        try {
            long remainingNs = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
            while (!wakeupPending && !stopped && remainingNs > 0) {
                remainingNs = wakeupCondition.awaitNanos(remainingNs);
            }
            wakeupPending = false;
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public final void run() {
        try {
            while (!stopped) {
                int work = doWork();
                if (work == 0 && !waitForWakeup(idleWaitMs())) {
                    break;
                }
            }
            onShutdown();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.error("{} stopped by an unexpected error", name, e);
        }
    }
}
