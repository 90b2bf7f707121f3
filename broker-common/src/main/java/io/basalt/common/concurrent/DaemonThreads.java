package io.basalt.common.concurrent;

import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.IntFunction;

/**
 * Thread factories for Basalt's executors and event loops: every thread is a daemon (a broker that
 * failed to shut down cleanly must not hang its JVM on a pool) and carries the name RocketMQ gives
 * it, so thread dumps read the same as RocketMQ's. Factories are safe for concurrent use.
 */
public final class DaemonThreads {
    private DaemonThreads() {
    }

    /** Every thread gets {@code name}: for single-thread executors ({@code FlushAckThread}). */
    public static ThreadFactory named(String name) {
        Objects.requireNonNull(name, "name");
        return factory(index -> name, Thread::new);
    }

    /** Threads named {@code prefix1}, {@code prefix2}, … in creation order ({@code SendMessageThread_1}). */
    public static ThreadFactory numbered(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        return factory(index -> prefix + index, Thread::new);
    }

    /**
     * Threads made by {@code newThread} (Netty's {@code FastThreadLocalThread::new}, say) and named by
     * {@code nameOfIndex} applied to 1, 2, … in creation order.
     */
    public static ThreadFactory factory(IntFunction<String> nameOfIndex, BiFunction<Runnable, String, Thread> newThread) {
        Objects.requireNonNull(nameOfIndex, "nameOfIndex");
        Objects.requireNonNull(newThread, "newThread");
        AtomicInteger index = new AtomicInteger();
        return r -> {
            Thread t = newThread.apply(r, nameOfIndex.apply(index.incrementAndGet()));
            t.setDaemon(true);
            return t;
        };
    }
}
