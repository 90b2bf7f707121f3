package io.basalt.broker.longpolling;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.ToLongBiFunction;

import io.basalt.common.service.ErrorPolicy;
import io.basalt.common.concurrent.DaemonThreads;
import io.basalt.common.service.ServiceThread;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Long polling: pulls that found nothing new wait here, per {@code topic@queueId}, until a message for
 * their queue is dispatched ({@link #notifyMessageArriving}, called by the store's dispatcher) or their
 * suspend timeout passes; then they are re-run once, without suspension, on the wake-up thread, and
 * answered. The service thread checks deadlines and queue heads every {@code checkIntervalMs} (RocketMQ's
 * PullRequestHoldService: 5 s, which a wake-up on arrival makes rarely matter).
 *
 * <p>Resilient ({@link ErrorPolicy#resilient()}): a held pull has its own deadline and a retry costs a
 * consumer at most one suspend timeout, so an unexpected error is counted, logged and the next round
 * goes on; it never stops the store.
 *
 * <p>On {@link #shutdown()} every held pull is answered at once, so that the remoting server's drain
 * does not wait for suspend timeouts.
 */
public final class PullRequestHoldService extends ServiceThread {
    private static final Logger log = LoggerFactory.getLogger(PullRequestHoldService.class);

    /** A suspended pull. {@code resume} re-runs it without suspension and answers it. */
    public record HeldPull(String topic, int queueId, long pullFromOffset, long deadlineMillis,
                           TagsCodeFilter filter, Runnable resume) {
    }

    /** Whether a newly dispatched message with this tags code may match the held pull. */
    @FunctionalInterface
    public interface TagsCodeFilter {
        boolean matches(long tagsCode);
    }

    private final ConcurrentMap<String, List<HeldPull>> held = new ConcurrentHashMap<>();
    private final ToLongBiFunction<String, Integer> maxOffsetInQueue;
    private final LongSupplier clock;
    private final long checkIntervalMs;
    private final ExecutorService resumer;
    private volatile boolean accepting = true;

    /**
     * @param maxOffsetInQueue (topic, queueId) → next logical offset to be written (the store's max offset)
     */
    public PullRequestHoldService(ToLongBiFunction<String, Integer> maxOffsetInQueue, LongSupplier clock,
        long checkIntervalMs) {
        super("PullRequestHoldService", ErrorPolicy.resilient());
        this.maxOffsetInQueue = maxOffsetInQueue;
        this.clock = clock;
        this.checkIntervalMs = checkIntervalMs;
        this.resumer = Executors.newSingleThreadExecutor(DaemonThreads.named("PullMessageResumeThread"));
    }

    private static String key(String topic, int queueId) {
        return topic + "@" + queueId;
    }

    /** False once shutting down: the caller must answer the pull itself instead of suspending it. */
    public boolean suspend(HeldPull pull) {
        if (!accepting) {
            return false;
        }
        held.computeIfAbsent(key(pull.topic(), pull.queueId()), k -> new CopyOnWriteArrayList<>()).add(pull);
        // A message may have landed between the pull's read and its registration: re-check once now.
        if (maxOffsetInQueue.applyAsLong(pull.topic(), pull.queueId()) > pull.pullFromOffset()) {
            release(pull);
        }
        return true;
    }

    /** Number of pulls currently held (for tests and metrics). */
    public int heldCount() {
        return held.values().stream().mapToInt(List::size).sum();
    }

    /** Called by the dispatcher after a ConsumeQueue entry of (topic, queueId) at {@code offset} was written. */
    public void notifyMessageArriving(String topic, int queueId, long offset, long tagsCode) {
        List<HeldPull> pulls = held.get(key(topic, queueId));
        if (pulls == null || pulls.isEmpty()) {
            return;
        }
        for (HeldPull p : pulls) {
            if (offset >= p.pullFromOffset() && p.filter().matches(tagsCode)) {
                release(p);
            }
        }
    }

    /**
     * Re-runs every pull held for the queue now, whatever it waits for: after an offset reset, so that the
     * consumer learns of it at once instead of when its pull times out (a re-run pull of another group finds
     * nothing and is answered at once; its client pulls again).
     */
    public void wakeQueue(String topic, int queueId) {
        List<HeldPull> pulls = held.get(key(topic, queueId));
        if (pulls != null) {
            pulls.forEach(this::release);
        }
    }

    private void release(HeldPull pull) {
        List<HeldPull> pulls = held.get(key(pull.topic(), pull.queueId()));
        if (pulls != null && pulls.remove(pull)) {
            try {
                resumer.execute(pull.resume());
            } catch (RejectedExecutionException e) {
                pull.resume().run();
            }
        }
    }

    @Override
    protected int doWork() {
        long now = clock.getAsLong();
        int released = 0;
        for (List<HeldPull> pulls : held.values()) {
            for (HeldPull p : pulls) {
                if (now >= p.deadlineMillis()
                    || maxOffsetInQueue.applyAsLong(p.topic(), p.queueId()) > p.pullFromOffset()) {
                    release(p);
                    released++;
                }
            }
        }
        return released;
    }

    @Override
    protected long idleWaitMs() {
        // Wake early enough for the nearest deadline.
        long now = clock.getAsLong();
        long next = checkIntervalMs;
        for (List<HeldPull> pulls : held.values()) {
            for (HeldPull p : pulls) {
                next = Math.min(next, Math.max(1, p.deadlineMillis() - now));
            }
        }
        return next;
    }

    @Override
    protected void onShutdown() throws InterruptedException {
        accepting = false;
        List<HeldPull> all = new ArrayList<>();
        held.values().forEach(all::addAll);
        all.forEach(this::release);
        resumer.shutdown();
        if (!resumer.awaitTermination(10, TimeUnit.SECONDS)) {
            log.warn("held pulls still being answered after 10 s");
        }
    }
}
