package io.basalt.broker.transaction;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import io.basalt.common.service.ErrorPolicy;
import io.basalt.common.service.ServiceThread;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RocketMQ's {@code TransactionalOpBatchService}: writes the op ("done") markers of decided half messages into
 * {@code RMQ_SYS_TRANS_OP_HALF_TOPIC} queue 0 in the 5.x form ({@link OpMarkerBody#format}: many offsets per
 * marker). A marker is written when the pending text exceeds {@code transactionOpMsgMaxSize} characters (a body is
 * filled to about that size, one entry more at most) or when its oldest entry has waited
 * {@code transactionOpBatchInterval} ms; everything pending is written at shutdown (so this service stops before
 * the store). A failed put is logged and retried with the same offsets, never dropped.
 *
 * <p>A marker is stored as RocketMQ stores it: sysFlag 0, born and store host this broker, born time now,
 * properties exactly {@code WAIT=true} and {@code TAGS=d} in the order RocketMQ's {@code HashMap} gives them
 * (RocketMQ generates a UNIQ_KEY after building the string, so none is stored), tags code of {@code "d"}.
 *
 * <p>{@link #add} is thread-safe and never blocks on the store.
 */
public final class OpMarkerWriter extends ServiceThread {
    static final String SERVICE_NAME = "TransactionalOpBatchService";
    private static final Logger log = LoggerFactory.getLogger("RocketmqTransaction");
    /** The properties string RocketMQ stores on every op marker. */
    static final String MARKER_PROPERTIES = "WAIT" + MessageProperties.NAME_VALUE_SEPARATOR + "true"
        + MessageProperties.PROPERTY_SEPARATOR + MessageProperties.TAGS + MessageProperties.NAME_VALUE_SEPARATOR
        + TransactionalMessages.REMOVE_TAG + MessageProperties.PROPERTY_SEPARATOR;
    /** How soon a failed marker write is tried again, ms. */
    static final long RETRY_AFTER_FAILURE_MS = 1000;
    /** How often shutdown tries to write what is pending before giving up (the check then re-asks), with a pause. */
    private static final int SHUTDOWN_ATTEMPTS = 3;

    private record Entry(long halfQueueOffset, long addedAtMs) {
    }

    private final MessageStore store;
    private final InetSocketAddress brokerHost;
    private final int maxSize;
    private final long intervalMs;
    private final LongSupplier clock;
    private final ArrayDeque<Entry> pending = new ArrayDeque<>();
    /** Characters of the body the pending entries make. */
    private int pendingChars;
    private volatile boolean lastWriteFailed;
    private final AtomicLong markersWritten = new AtomicLong();
    private final AtomicLong offsetsWritten = new AtomicLong();
    private final AtomicLong writeFailures = new AtomicLong();

    /**
     * @param brokerHost this broker's address (brokerIP1 and listen port), the markers' born and store host
     * @param maxSize    transactionOpMsgMaxSize, characters
     * @param intervalMs transactionOpBatchInterval, ms
     */
    public OpMarkerWriter(MessageStore store, InetSocketAddress brokerHost, int maxSize, long intervalMs,
                          LongSupplier clock) {
        super(SERVICE_NAME, ErrorPolicy.resilient());
        this.store = store;
        this.brokerHost = brokerHost;
        this.maxSize = Math.max(1, maxSize);
        this.intervalMs = Math.max(1, intervalMs);
        this.clock = clock;
    }

    /** Queues the mark of the half record at {@code halfQueueOffset}; written within the batch interval. */
    public void add(long halfQueueOffset) {
        boolean full;
        synchronized (pending) {
            pending.addLast(new Entry(halfQueueOffset, clock.getAsLong()));
            pendingChars += chars(halfQueueOffset);
            full = pendingChars > maxSize;
        }
        if (full) {
            wakeup();
        }
    }

    private static int chars(long offset) {
        return Long.toString(offset).length() + 1;
    }

    @Override
    protected int doWork() {
        List<Long> batch = takeDue(false);
        if (batch.isEmpty()) {
            return 0;
        }
        if (!write(batch)) {
            giveBack(batch);
            return 0;
        }
        return batch.size();
    }

    @Override
    protected long idleWaitMs() {
        if (lastWriteFailed) {
            return RETRY_AFTER_FAILURE_MS;
        }
        synchronized (pending) {
            Entry oldest = pending.peekFirst();
            if (oldest == null) {
                return intervalMs;
            }
            return Math.max(1, oldest.addedAtMs() + intervalMs - clock.getAsLong());
        }
    }

    @Override
    protected void onShutdown() throws InterruptedException {
        int attempt = 0;
        while (true) {
            List<Long> batch = takeDue(true);
            if (batch.isEmpty()) {
                return;
            }
            if (write(batch)) {
                continue;
            }
            giveBack(batch);
            if (++attempt >= SHUTDOWN_ATTEMPTS) {
                List<Long> lost;
                synchronized (pending) {
                    lost = pending.stream().map(Entry::halfQueueOffset).toList();
                }
                log.error("shutdown: {} op markers for half-queue offsets {} could not be written; the back-check will"
                    + " ask the producers about them again (a committed one is not committed twice)", lost.size(), lost);
                return;
            }
            Thread.sleep(100);
        }
    }

    /** The next marker's offsets: taken when the text is full or the oldest is due ({@code all}: whenever any). */
    private List<Long> takeDue(boolean all) {
        synchronized (pending) {
            Entry oldest = pending.peekFirst();
            if (oldest == null) {
                return List.of();
            }
            if (!all && pendingChars <= maxSize && clock.getAsLong() - oldest.addedAtMs() < intervalMs) {
                return List.of();
            }
            List<Long> batch = new ArrayList<>();
            int chars = 0;
            while (!pending.isEmpty() && chars < maxSize) {
                Entry e = pending.pollFirst();
                batch.add(e.halfQueueOffset());
                int c = chars(e.halfQueueOffset());
                chars += c;
                pendingChars -= c;
            }
            return batch;
        }
    }

    /** Puts back a batch that was not written, ahead of what came since, with its original age. */
    private void giveBack(List<Long> batch) {
        long now = clock.getAsLong();
        synchronized (pending) {
            for (int i = batch.size() - 1; i >= 0; i--) {
                long offset = batch.get(i);
                // aged as due, so the retry does not wait another interval
                pending.addFirst(new Entry(offset, now - intervalMs));
                pendingChars += chars(offset);
            }
        }
    }

    private boolean write(List<Long> offsets) {
        BrokerMessage marker = marker(offsets, clock.getAsLong());
        PutMessageResult result;
        try {
            result = store.asyncPutMessage(marker).join();
        } catch (RuntimeException e) {
            failed(offsets, e.toString());
            return false;
        }
        if (!result.status().isStored()) {
            failed(offsets, result.status() + (result.reason() == null ? "" : " (" + result.reason() + ")"));
            return false;
        }
        if (lastWriteFailed) {
            log.info("op marker written again after {} failed attempts in all", writeFailures.get());
        }
        lastWriteFailed = false;
        markersWritten.incrementAndGet();
        offsetsWritten.addAndGet(offsets.size());
        return true;
    }

    private void failed(List<Long> offsets, String why) {
        writeFailures.incrementAndGet();
        lastWriteFailed = true;
        log.warn("writing the op marker for {} half messages (offsets {}..{}) failed: {}; retrying in {} ms",
            offsets.size(), offsets.get(0), offsets.get(offsets.size() - 1), why, RETRY_AFTER_FAILURE_MS);
    }

    /** The op marker record for {@code offsets}, born at {@code nowMs}. */
    BrokerMessage marker(List<Long> offsets, long nowMs) {
        return BrokerMessage.builder()
            .topic(TransactionalMessages.OP_HALF_TOPIC)
            .queueId(TransactionalMessages.HALF_QUEUE_ID)
            .sysFlag(0)
            .body(OpMarkerBody.format(offsets))
            .propertiesString(MARKER_PROPERTIES)
            .bornTimestamp(nowMs)
            .bornHost(brokerHost)
            .storeHost(brokerHost)
            .build();
    }

    /** Marks queued and not yet written. */
    public int pendingCount() {
        synchronized (pending) {
            return pending.size();
        }
    }

    public long markersWritten() {
        return markersWritten.get();
    }

    public long offsetsWritten() {
        return offsetsWritten.get();
    }

    public long writeFailures() {
        return writeFailures.get();
    }
}
