package io.basalt.ha.master;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.jctools.queues.MpscUnboundedArrayQueue;

import io.basalt.store.AppendMessageResult;
import io.basalt.store.BrokerMessage;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.spi.ReplicaWait;
import io.basalt.common.service.ErrorPolicy;
import io.basalt.common.service.ServiceThread;

/**
 * SYNC_MASTER's replica wait: a put's future completes PUT_OK once some slave acknowledged an offset
 * at or beyond the record's end, FLUSH_SLAVE_TIMEOUT when {@code slaveTimeoutMs} passes first, and
 * SLAVE_NOT_AVAILABLE at once when no streaming slave is within {@code haMaxGapNotInSync} (the
 * message is stored on the master only; the client sees it in the status).
 *
 * <p>Appending threads hand requests over through a jctools MPSC queue. The waiting list has one
 * writer at a time, whoever holds {@code settleLock}: the HA connection thread that just read an ack
 * settles the covered puts itself when the lock is free (saving a thread hand-off on every
 * SYNC_MASTER put), otherwise it wakes the service thread, which also times out expired requests
 * every few milliseconds.
 *
 * <p>Durability-critical: its error policy is the store's fail-stop, since a replica wait that stopped
 * settling would leave every SYNC_MASTER put waiting for its timeout. After a trip it keeps settling
 * (puts already stored still get their answer); the store refuses new ones.
 */
final class GroupTransferService extends ServiceThread implements ReplicaWait {
    private static final long DEADLINE_CHECK_MS = 5;

    private record Request(long nextOffset, long deadlineNs, CompletableFuture<PutMessageStatus> future) {
    }

    private final SlaveAcks service;
    private final long slaveTimeoutNs;
    private final long haMaxGapNotInSync;
    private final MpscUnboundedArrayQueue<Request> incoming = new MpscUnboundedArrayQueue<>(1024);
    private final ArrayDeque<Request> waiting = new ArrayDeque<>();
    private final ReentrantLock settleLock = new ReentrantLock();

    /** What the service needs of its HA service: how far the slaves have acknowledged. */
    interface SlaveAcks {
        /** The highest CommitLog offset a slave in sync has acknowledged. */
        long bestAckOffset();

        /** Whether some slave is within {@code gap} bytes of the master's end. */
        boolean hasSlaveInSync(long gap);
    }

    GroupTransferService(SlaveAcks service, long slaveTimeoutMs, long haMaxGapNotInSync, ErrorPolicy errorPolicy) {
        super("GroupTransferService", errorPolicy);
        this.service = service;
        this.slaveTimeoutNs = TimeUnit.MILLISECONDS.toNanos(slaveTimeoutMs);
        this.haMaxGapNotInSync = haMaxGapNotInSync;
    }

    @Override
    public CompletableFuture<PutMessageStatus> await(BrokerMessage message, AppendMessageResult result) {
        if (!message.waitStoreMsgOk()) {
            return CompletableFuture.completedFuture(PutMessageStatus.PUT_OK);
        }
        long nextOffset = result.nextOffset();
        if (service.bestAckOffset() >= nextOffset) {
            return CompletableFuture.completedFuture(PutMessageStatus.PUT_OK);
        }
        if (isStopped() || !service.hasSlaveInSync(haMaxGapNotInSync)) {
            return CompletableFuture.completedFuture(PutMessageStatus.SLAVE_NOT_AVAILABLE);
        }
        Request request = new Request(nextOffset, System.nanoTime() + slaveTimeoutNs, new CompletableFuture<>());
        incoming.offer(request);
        wakeup();
        if (isStopped()) {
            // the service stopped between the check above and the offer: its last drain may have missed this one
            answerWaitingPuts();
        }
        return request.future();
    }

    /** An HA connection thread read an ack: settle now if nobody else is, else leave it to the service thread. */
    void onAck() {
        if (settleLock.tryLock()) {
            try {
                settle();
            } finally {
                settleLock.unlock();
            }
        } else {
            wakeup();
        }
    }

    @Override
    protected int doWork() {
        settleLock.lock();
        try {
            return settle();
        } finally {
            settleLock.unlock();
        }
    }

    private int settle() {
        int moved = incoming.drain(waiting::add);
        if (waiting.isEmpty()) {
            return moved;
        }
        long acked = service.bestAckOffset();
        long now = System.nanoTime();
        int done = 0;
        for (Iterator<Request> it = waiting.iterator(); it.hasNext(); ) {
            Request r = it.next();
            if (r.nextOffset() <= acked) {
                r.future().complete(PutMessageStatus.PUT_OK);
            } else if (now - r.deadlineNs() >= 0) {
                r.future().complete(PutMessageStatus.FLUSH_SLAVE_TIMEOUT);
            } else {
                continue;
            }
            it.remove();
            done++;
        }
        return moved + done;
    }

    @Override
    protected long idleWaitMs() {
        return DEADLINE_CHECK_MS;
    }

    /** Nobody will acknowledge any more: every waiting put gets FLUSH_SLAVE_TIMEOUT (its message is stored). */
    @Override
    protected void onShutdown() {
        answerWaitingPuts();
    }

    private void answerWaitingPuts() {
        settleLock.lock();
        try {
            incoming.drain(waiting::add);
            for (Request r : waiting) {
                r.future().complete(PutMessageStatus.FLUSH_SLAVE_TIMEOUT);
            }
            waiting.clear();
        } finally {
            settleLock.unlock();
        }
    }
}
