package io.basalt.remoting.processor;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

import io.basalt.common.concurrent.DaemonThreads;

/**
 * The bounded business executor behind one or more request processors: a fixed number of threads
 * named {@code <threadNamePrefix><n>} and a queue of fixed capacity. A request that does not fit in
 * the queue is refused at once; a request that waited in the queue longer than {@code maxQueueWaitMs}
 * is answered SYSTEM_BUSY instead of being processed late (RocketMQ's
 * {@code waitTimeMillsInSendQueue}). The caller owns it: shut it down after the server.
 */
public final class RequestExecutor {
    private final String name;
    private final ThreadPoolExecutor pool;
    private final long maxQueueWaitNanos;
    private final LongSupplier nanoClock;
    private final LongAdder systemBusy = new LongAdder();

    /**
     * @param maxQueueWaitMs the queueing budget of a request; 0 or less means no budget
     * @param nanoClock the clock the budget is measured with ({@code System::nanoTime} in production)
     */
    public RequestExecutor(String threadNamePrefix, int threads, int queueCapacity, long maxQueueWaitMs,
        LongSupplier nanoClock) {
        if (threads < 1 || queueCapacity < 1) {
            throw new IllegalArgumentException(threadNamePrefix + ": threads (" + threads + ") and queueCapacity ("
                + queueCapacity + ") must be at least 1");
        }
        this.name = threadNamePrefix;
        this.maxQueueWaitNanos = maxQueueWaitMs <= 0 ? Long.MAX_VALUE : TimeUnit.MILLISECONDS.toNanos(maxQueueWaitMs);
        this.nanoClock = nanoClock;
        this.pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(queueCapacity), DaemonThreads.numbered(threadNamePrefix),
            new ThreadPoolExecutor.AbortPolicy());
    }

    public static RequestExecutor create(String threadNamePrefix, int threads, int queueCapacity, long maxQueueWaitMs) {
        return new RequestExecutor(threadNamePrefix, threads, queueCapacity, maxQueueWaitMs, System::nanoTime);
    }

    public String name() {
        return name;
    }

    long now() {
        return nanoClock.getAsLong();
    }

    /** Whether a request queued at {@code enqueuedAtNanos} has overrun its budget by {@code nowNanos}. */
    boolean overBudget(long enqueuedAtNanos, long nowNanos) {
        return nowNanos - enqueuedAtNanos > maxQueueWaitNanos;
    }

    /** Queues the task; false when the queue is full or the executor is shut down. */
    boolean offer(Runnable task) {
        try {
            pool.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    Runnable peekQueued() {
        return pool.getQueue().peek();
    }

    /** Takes a queued task back out; false when a thread took it first. */
    boolean removeQueued(Runnable task) {
        return pool.remove(task);
    }

    void countBusy() {
        systemBusy.increment();
    }

    /** Requests of this executor answered SYSTEM_BUSY (queue full or queueing budget overrun) since start. */
    public long systemBusyCount() {
        return systemBusy.sum();
    }

    /** A queued task that knows when it was queued (the dispatcher's requests). */
    interface Queued {
        long enqueuedAtNanos();
    }

    /**
     * How long the oldest queued request has waited, in ms (RocketMQ's {@code headSlowTimeMills}); 0 with an empty
     * queue.
     */
    public long headWaitMillis() {
        Runnable head = pool.getQueue().peek();
        return head instanceof Queued queued ? Math.max(0, TimeUnit.NANOSECONDS.toMillis(now() - queued.enqueuedAtNanos())) : 0;
    }

    public int queueSize() {
        return pool.getQueue().size();
    }

    /** Stops taking work, lets queued tasks finish, waits up to {@code timeoutMs} for the threads to end. */
    public boolean shutdown(long timeoutMs) throws InterruptedException {
        pool.shutdown();
        return pool.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS);
    }
}
