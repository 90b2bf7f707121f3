package io.basalt.store.timer;

import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.PutMessageResult;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.StoredMessage;
import io.basalt.store.TimerMessages;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts due timer messages back, pipelined: records are read and converted on the
 * {@code TimerDequeueGetMessageService} threads, which keep up to {@link #MAX_IN_FLIGHT} puts in flight
 * through the store's own put path; completions, retries and the delivery listener run on the
 * {@code TimerDequeuePutMessageService} threads. A put refused with SERVICE_NOT_AVAILABLE (disk full,
 * store not writable) is retried every {@code 500 × precision / 1000} ms for as long as delivery may go
 * on, never dropped; any other refusal is retried {@link #RETRIES} times with a doubling back-off (none
 * with {@code timerSkipUnknownError}), then the message is set aside: logged and counted, so that one bad
 * message never holds the wheel. Each delivery's future completes true once settled (stored, dropped or
 * set aside) and false when delivery stopped first (role change, shutdown): the slot is then read again.
 */
final class TimerDelivery {
    private static final Logger LOG = LoggerFactory.getLogger(TimerDelivery.class);
    static final int MAX_IN_FLIGHT = 20_000;
    static final int RETRIES = 3;
    private static final long FIRST_BACKOFF_MS = 50;

    /** What to deliver: the rmq_sys_wheel_timer record and how it left the wheel. */
    record Item(StoredMessage record, long enqueueMs, boolean roll) {
    }

    private final TimerStoreAccess store;
    private final long precisionMs;
    private final boolean skipUnknownError;
    private final TimerMetrics metrics;
    private final ThreadPoolExecutor getPool;
    private final ScheduledThreadPoolExecutor putPool;
    private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong setAside = new AtomicLong();
    private volatile TimerMessages.DeliveryListener listener;

    TimerDelivery(TimerStoreAccess store, long precisionMs, boolean skipUnknownError, int getThreads, int putThreads,
                  TimerMetrics metrics) {
        this.store = store;
        this.precisionMs = precisionMs;
        this.skipUnknownError = skipUnknownError;
        this.metrics = metrics;
        this.getPool = new ThreadPoolExecutor(getThreads, getThreads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
            named("TimerDequeueGetMessageService"));
        this.putPool = new ScheduledThreadPoolExecutor(putThreads, named("TimerDequeuePutMessageService"));
    }

    private static java.util.concurrent.ThreadFactory named(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    void setListener(TimerMessages.DeliveryListener listener) {
        this.listener = listener;
    }

    ExecutorService readers() {
        return getPool;
    }

    long delivered() {
        return delivered.get();
    }

    long setAside() {
        return setAside.get();
    }

    /**
     * Converts and puts {@code item} (blocking while {@link #MAX_IN_FLIGHT} puts are in flight); the
     * future completes true once settled, false if {@code mayGoOn} turned false first.
     */
    CompletableFuture<Boolean> deliver(Item item, BooleanSupplier mayGoOn) {
        BrokerMessage message;
        try {
            message = convert(item);
        } catch (RuntimeException e) {
            LOG.error("Timer message at CommitLog offset {} cannot be put back ({}); set aside",
                item.record().physicalOffset(), e.toString());
            setAside.incrementAndGet();
            return CompletableFuture.completedFuture(true);
        }
        try {
            inFlight.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CompletableFuture.completedFuture(false);
        }
        CompletableFuture<Boolean> settled = new CompletableFuture<>();
        settled.whenComplete((ok, e) -> inFlight.release());
        attempt(item, message, 0, settled, mayGoOn);
        return settled;
    }

    private void attempt(Item item, BrokerMessage message, int failures, CompletableFuture<Boolean> settled,
                         BooleanSupplier mayGoOn) {
        if (!mayGoOn.getAsBoolean()) {
            settled.complete(false);
            return;
        }
        CompletableFuture<PutMessageResult> put;
        try {
            put = store.put(message);
        } catch (RuntimeException e) {
            put = CompletableFuture.failedFuture(e);
        }
        put.whenCompleteAsync((result, error) -> {
            try {
                onPut(item, message, failures, settled, mayGoOn, result, error);
            } catch (RuntimeException e) {
                LOG.error("Timer delivery of CommitLog offset {} failed unexpectedly; set aside",
                    item.record().physicalOffset(), e);
                setAside.incrementAndGet();
                settled.complete(true);
            }
        }, putPool);
    }

    private void onPut(Item item, BrokerMessage message, int failures, CompletableFuture<Boolean> settled,
                       BooleanSupplier mayGoOn, PutMessageResult result, Throwable error) {
        PutMessageStatus status = result == null ? PutMessageStatus.UNKNOWN_ERROR : result.status();
        if (error == null && status.isStored()) {
            String realTopic = item.record().propertyMap().get(TimerConstants.REAL_TOPIC);
            metrics.add(realTopic, -1);
            if (!item.roll()) {
                delivered.incrementAndGet();
                TimerMessages.DeliveryListener l = listener;
                if (l != null) {
                    l.delivered(message.topic(), dueMillis(item.record()), message.storeTimestamp());
                }
            }
            settled.complete(true);
            return;
        }
        if (status == PutMessageStatus.SERVICE_NOT_AVAILABLE && error == null) {
            retryLater(item, message, failures, settled, mayGoOn, Math.max(10, 500 * precisionMs / 1000));
            return;
        }
        boolean hopeless = status == PutMessageStatus.MESSAGE_ILLEGAL || status == PutMessageStatus.PROPERTIES_SIZE_EXCEEDED
            || status == PutMessageStatus.WHEEL_TIMER_MSG_ILLEGAL;
        if (!hopeless && !skipUnknownError && failures < RETRIES) {
            retryLater(item, message, failures + 1, settled, mayGoOn, FIRST_BACKOFF_MS << failures);
            return;
        }
        setAside.incrementAndGet();
        metrics.add(item.record().propertyMap().get(TimerConstants.REAL_TOPIC), -1);
        LOG.error("Timer message {} (CommitLog offset {}) for topic {} set aside after {} attempts: {}{}",
            message.uniqKey(), item.record().physicalOffset(), message.topic(), failures + 1, status,
            error != null ? " " + error : result != null && result.reason() != null ? " " + result.reason() : "");
        settled.complete(true);
    }

    private void retryLater(Item item, BrokerMessage message, int failures, CompletableFuture<Boolean> settled,
                            BooleanSupplier mayGoOn, long delayMs) {
        try {
            putPool.schedule(() -> attempt(item, message, failures, settled, mayGoOn), delayMs, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            settled.complete(false);
        }
    }

    /** The client's deliver time as RocketMQ computes it at the send: relative delays from the store time. */
    private long dueMillis(StoredMessage record) {
        Map<String, String> p = record.propertyMap();
        try {
            String sec = p.get(TimerConstants.TIMER_DELAY_SEC);
            if (sec != null) {
                return record.storeTimestamp() + Long.parseLong(sec.trim()) * 1000;
            }
            String ms = p.get(TimerConstants.TIMER_DELAY_MS);
            if (ms != null) {
                return record.storeTimestamp() + Long.parseLong(ms.trim());
            }
            String at = p.get(TimerConstants.TIMER_DELIVER_MS);
            if (at != null) {
                return Long.parseLong(at.trim());
            }
            return Long.parseLong(p.get(TimerConstants.TIMER_OUT_MS)) + precisionMs;
        } catch (RuntimeException e) {
            return record.storeTimestamp();
        }
    }

    /**
     * RocketMQ's {@code convert} + {@code convertMessage}: every current property plus TIMER_ENQUEUE_MS,
     * TIMER_ROLL_TIMES (rolls) and TIMER_DEQUEUE_MS; a roll stays in rmq_sys_wheel_timer queue 0, anything
     * else goes to REAL_TOPIC / REAL_QID, which stay in the stored properties.
     */
    BrokerMessage convert(Item item) {
        StoredMessage r = item.record();
        Map<String, String> props = MessageProperties.parse(r.properties());
        if (item.enqueueMs() != -1) {
            props.put(TimerConstants.TIMER_ENQUEUE_MS, Long.toString(item.enqueueMs()));
        }
        if (item.roll()) {
            String times = props.get(TimerConstants.TIMER_ROLL_TIMES);
            props.put(TimerConstants.TIMER_ROLL_TIMES, Integer.toString(times == null ? 1 : Integer.parseInt(times) + 1));
        }
        props.put(TimerConstants.TIMER_DEQUEUE_MS, Long.toString(store.nowMs()));
        String topic;
        int queueId;
        if (item.roll()) {
            topic = TimerConstants.TIMER_TOPIC;
            queueId = 0;
        } else {
            topic = props.get(TimerConstants.REAL_TOPIC);
            String qid = props.get(TimerConstants.REAL_QID);
            if (topic == null || qid == null) {
                throw new IllegalArgumentException("the record has no REAL_TOPIC / REAL_QID");
            }
            queueId = Integer.parseInt(qid);
        }
        return BrokerMessage.builder().topic(topic).queueId(queueId).flag(r.flag()).body(r.body())
            .propertiesString(MessageProperties.toPropertiesString(props)).bornTimestamp(r.bornTimestamp())
            .bornHost(r.bornHost()).storeHost(r.storeHost()).sysFlag(r.sysFlag()).reconsumeTimes(r.reconsumeTimes())
            .preparedTransactionOffset(r.preparedTransactionOffset()).dueRedelivery(true).build();
    }

    /** Stops the pools: readers at once, completions after those in flight settled (at most {@code waitMs}). */
    void shutdown(long waitMs) {
        getPool.shutdown();
        try {
            getPool.awaitTermination(waitMs, TimeUnit.MILLISECONDS);
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
            while (inFlight.availablePermits() < MAX_IN_FLIGHT && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        putPool.shutdownNow();
        getPool.shutdownNow();
        try {
            putPool.awaitTermination(waitMs, TimeUnit.MILLISECONDS);
            getPool.awaitTermination(waitMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
