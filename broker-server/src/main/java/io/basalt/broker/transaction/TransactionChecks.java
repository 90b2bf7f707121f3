package io.basalt.broker.transaction;

import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.basalt.common.concurrent.DaemonThreads;
import io.basalt.remoting.processor.RemotingConnection;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.store.MessageProperties;
import io.basalt.store.StoredMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends CHECK_TRANSACTION_STATE requests on a small pool ({@code Transaction-msg-check-thread}, 2 to 5 threads, 2000
 * waiting, the scan thread runs one itself when it is full, as RocketMQ's). A check counts
 * ({@link TransactionCounters#checked}) only once the request was written to the producer's connection; when the
 * write fails, the check copy's TRANSACTION_CHECK_TIMES counted a check that was not sent, and the next scan, told
 * by {@link #notSent}, takes one off (RocketMQ counts checks it never sent, #8311). That note is kept in memory:
 * a broker restarted between the failed write and the next scan counts the unsent check. Thread-safe.
 */
final class TransactionChecks {
    private static final Logger log = LoggerFactory.getLogger("RocketmqTransaction");

    private final String brokerName;
    private final TransactionCounters counters;
    private final ExecutorService pool;
    /** Half-queue offsets of check copies whose request could not be written. */
    private final Set<Long> unsent = ConcurrentHashMap.newKeySet();

    TransactionChecks(String brokerName, TransactionCounters counters) {
        this(brokerName, counters, new ThreadPoolExecutor(2, 5, 100, TimeUnit.SECONDS, new ArrayBlockingQueue<>(2000),
            DaemonThreads.numbered("Transaction-msg-check-thread"), new ThreadPoolExecutor.CallerRunsPolicy()));
    }

    /** With the executor the requests are written on (tests: the calling thread). */
    TransactionChecks(String brokerName, TransactionCounters counters, ExecutorService pool) {
        this.brokerName = brokerName;
        this.counters = counters;
        this.pool = pool;
    }

    /** Asks the producer on {@code connection} about the transaction of {@code copy}, the check copy just stored. */
    void send(StoredMessage copy, RemotingConnection connection, String producerGroup) {
        pool.execute(() -> write(copy, connection, producerGroup));
    }

    private void write(StoredMessage copy, RemotingConnection connection, String producerGroup) {
        String realTopic = HalfMessages.realTopic(copy);
        RemotingCommand request;
        try {
            request = CheckTransactionStateRequest.of(copy, brokerName);
        } catch (RuntimeException e) {
            // a record whose fields do not encode (a property string over 32 KiB): the producer cannot be asked
            notWritten(copy, producerGroup, e);
            return;
        }
        connection.invokeOneway(request).whenComplete((written, failure) -> {
            if (failure == null) {
                counters.checked(realTopic);
                log.info("Check transaction sent to {} of group {}: real topic={}, uniqKey={}, offset={}, commitLogOffset={}",
                    connection.remoteAddress(), producerGroup, realTopic,
                    copy.property(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX), copy.queueOffset(),
                    copy.physicalOffset());
            } else {
                notWritten(copy, producerGroup, failure);
            }
        });
    }

    private void notWritten(StoredMessage copy, String producerGroup, Throwable failure) {
        unsent.add(copy.queueOffset());
        log.warn("Check transaction failed because invoke producer exception. group={}, msgId={}, error={}",
            producerGroup, copy.offsetMsgId(), failure.toString());
    }

    /** Whether the check of the copy at {@code halfQueueOffset} was not written; forgets it (asked once). */
    boolean notSent(long halfQueueOffset) {
        return unsent.remove(halfQueueOffset);
    }

    /** Stops the pool; checks waiting are dropped (the next master's scan asks again). */
    void shutdown() {
        pool.shutdownNow();
    }
}
