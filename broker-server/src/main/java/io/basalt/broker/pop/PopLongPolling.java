package io.basalt.broker.pop;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.basalt.common.concurrent.DaemonThreads;

/**
 * Parked POP and NOTIFICATION requests that found nothing: each waits, registered under every topic whose arrival
 * may give it something (the topic and the group's POP retry topics, v1 and v2), until such an arrival
 * ({@link #arrived}) or its deadline on the broker's clock. A wake-up re-runs the request on the resume thread; the
 * request may park again until its deadline. Thread-safe.
 */
public final class PopLongPolling {

    /** A parked request. {@code retry} re-runs it; {@code expire} answers it with "nothing". */
    public static final class Waiter {
        final String key;
        final List<String> topics;
        final Runnable retry;
        final Runnable expire;
        final AtomicBoolean done = new AtomicBoolean();
        volatile java.util.concurrent.ScheduledFuture<?> deadline;

        public Waiter(String key, List<String> topics, Runnable retry, Runnable expire) {
            this.key = key;
            this.topics = List.copyOf(topics);
            this.retry = retry;
            this.expire = expire;
        }
    }

    private final ConcurrentMap<String, Set<Waiter>> byTopic = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, AtomicInteger> byKey = new ConcurrentHashMap<>();
    private final AtomicInteger parked = new AtomicInteger();
    private final int maxParked;
    private final java.util.concurrent.ScheduledThreadPoolExecutor deadlines =
        new java.util.concurrent.ScheduledThreadPoolExecutor(1, DaemonThreads.named("PopLongPollingDeadlines"));
    private final ExecutorService resumer = Executors.newFixedThreadPool(2, DaemonThreads.numbered("PopLongPollingResume_"));
    private volatile boolean accepting = true;

    /** @param maxParked RocketMQ's {@code maxPopPollingSize}: beyond it a pop is answered POLLING_FULL */
    public PopLongPolling(int maxParked) {
        this.maxParked = maxParked;
        // a woken request's deadline task goes at once, not when its poll time would have ended
        deadlines.setRemoveOnCancelPolicy(true);
    }

    /** The key of RocketMQ's POLLING_INFO count: topic@group@queueId. */
    public static String key(String topic, String group, int queueId) {
        return topic + "@" + group + "@" + queueId;
    }

    /** Parks {@code w} until {@code deadlineDelayMs} from now; false when the table is full or shutting down. */
    public boolean park(Waiter w, long deadlineDelayMs) {
        if (!accepting || parked.incrementAndGet() > maxParked) {
            parked.decrementAndGet();
            return false;
        }
        byKey.computeIfAbsent(w.key, k -> new AtomicInteger()).incrementAndGet();
        for (String topic : w.topics) {
            byTopic.computeIfAbsent(topic, t -> ConcurrentHashMap.newKeySet()).add(w);
        }
        try {
            w.deadline = deadlines.schedule(() -> finish(w, w.expire), Math.max(1, deadlineDelayMs), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            finish(w, w.expire);
        }
        return true;
    }

    /** Wakes now, running {@code then} instead of the request's retry (a message arrived before the parking). */
    public void wake(Waiter w, Runnable then) {
        finish(w, then);
    }

    /** Unparks {@code w} without running it: its requester gave up (the gRPC client terminated). */
    public void cancel(Waiter w) {
        finish(w, () -> { });
    }

    /** A message of {@code topic} was dispatched: every request parked on it is re-run. */
    public void arrived(String topic) {
        Set<Waiter> waiters = byTopic.get(topic);
        if (waiters == null || waiters.isEmpty()) {
            return;
        }
        for (Waiter w : waiters) {
            finish(w, w.retry);
        }
    }

    /**
     * Re-runs the requests parked on {@code topic} in {@code delayMs} (an order queue's block ends then); {@code
     * after} runs once they were told.
     */
    public void arriveLater(String topic, long delayMs, Runnable after) {
        try {
            deadlines.schedule(() -> {
                after.run();
                arrived(topic);
            }, Math.max(1, delayMs), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            after.run();
        }
    }

    /** Parked requests of topic@group@queueId (POLLING_INFO's {@code pollingNum}). */
    public int count(String topic, String group, int queueId) {
        AtomicInteger n = byKey.get(key(topic, group, queueId));
        return n == null ? 0 : n.get();
    }

    public int parkedCount() {
        return parked.get();
    }

    private void finish(Waiter w, Runnable then) {
        if (!w.done.compareAndSet(false, true)) {
            return;
        }
        parked.decrementAndGet();
        java.util.concurrent.ScheduledFuture<?> deadline = w.deadline;
        if (deadline != null) {
            deadline.cancel(false);
        }
        AtomicInteger n = byKey.get(w.key);
        if (n != null) {
            n.decrementAndGet();
        }
        for (String topic : w.topics) {
            Set<Waiter> set = byTopic.get(topic);
            if (set != null) {
                set.remove(w);
            }
        }
        try {
            resumer.execute(then);
        } catch (RejectedExecutionException e) {
            w.expire.run();
        }
    }

    /** Answers every parked request with "nothing" and stops. */
    public void shutdown() {
        accepting = false;
        byTopic.values().stream().flatMap(Collection::stream).toList().forEach(w -> finish(w, w.expire));
        deadlines.shutdownNow();
        resumer.shutdown();
        try {
            resumer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
