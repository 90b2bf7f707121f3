package io.basalt.remoting.processor;

import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RemotingVersion;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.remoting.protocol.UnsupportedRequestCodes;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The table request code → (processor, executor), and the path of one request through it: look up,
 * queue on the executor (SYSTEM_BUSY when full), check the queueing budget (SYSTEM_BUSY when
 * overrun, checked when a thread takes the request and, for the head of the queue, whenever another
 * request arrives for the same executor), process, answer. Unknown codes get REQUEST_CODE_NOT_SUPPORTED; one-way requests are never
 * answered. Counts requests in flight so that a shutdown can wait for them.
 *
 * <p>Register every processor before the first {@link #dispatch}; after that the table is read-only
 * and {@code dispatch} may be called from any thread (the connections' event loops).
 */
public final class RequestDispatcher {
    private static final Logger log = LoggerFactory.getLogger(RequestDispatcher.class);
    private static final int DIRECT_CODES = 1024;

    private final Registration[] direct = new Registration[DIRECT_CODES];
    private final Map<Integer, Registration> others = new HashMap<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile RequestGate gate = RequestGate.OPEN;
    private final CompletableFuture<Void> drained = new CompletableFuture<>();
    private volatile boolean draining;

    private record Registration(RequestProcessor processor, RequestExecutor executor) {
    }

    public void register(int code, RequestProcessor processor, RequestExecutor executor) {
        Registration registration = new Registration(processor, executor);
        if (code >= 0 && code < DIRECT_CODES) {
            direct[code] = registration;
        } else {
            others.put(code, registration);
        }
    }

    /** Installs the gate every request passes before its processor (authentication); set before the first dispatch. */
    public void setGate(RequestGate gate) {
        this.gate = gate == null ? RequestGate.OPEN : gate;
    }

    private Registration lookup(int code) {
        return code >= 0 && code < DIRECT_CODES ? direct[code] : others.get(code);
    }

    /** Requests accepted and not yet answered (or, for one-way requests, not yet processed). */
    public int inFlight() {
        return inFlight.get();
    }

    /**
     * Stops accepting requests (later ones get GO_AWAY, or SYSTEM_BUSY from peers older than 5.1.4)
     * and returns a future that completes once every accepted request has been answered.
     */
    public CompletableFuture<Void> drain() {
        draining = true;
        if (inFlight.get() == 0) {
            drained.complete(null);
        }
        return drained;
    }

    /** Routes one decoded request. Never throws; every outcome becomes a response (or, one-way, none). */
    public void dispatch(RemotingCommand request, RequestContext context, ResponseChannel channel) {
        inFlight.incrementAndGet();
        if (draining) {
            boolean goAway = request.version() > RemotingVersion.V5_1_4;
            answer(request, RemotingCommand.response(goAway ? ResponseCode.GO_AWAY : ResponseCode.SYSTEM_BUSY,
                "server is shutting down"), channel);
            return;
        }
        Registration registration = lookup(request.code());
        if (registration == null) {
            log.debug("{} sent unsupported request code {}", context.remoteAddress(), request.code());
            answer(request, RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                UnsupportedRequestCodes.remark(request.code())), channel);
            return;
        }
        RequestExecutor executor = registration.executor();
        long now = executor.now();
        expireOverdue(executor, now);
        boolean queued = executor.offer(new QueuedRequest(registration, request, context, channel, now));
        if (!queued) {
            executor.countBusy();
            answer(request, RemotingCommand.response(ResponseCode.SYSTEM_BUSY,
                "[OVERLOAD]system busy, start flow control for a while"), channel);
        }
    }

    /** A request waiting in its executor's queue. */
    private final class QueuedRequest implements Runnable, RequestExecutor.Queued {
        final Registration registration;
        final RemotingCommand request;
        final RequestContext context;
        final ResponseChannel channel;
        final long enqueuedAtNanos;

        QueuedRequest(Registration registration, RemotingCommand request, RequestContext context,
            ResponseChannel channel, long enqueuedAtNanos) {
            this.registration = registration;
            this.request = request;
            this.context = context;
            this.channel = channel;
            this.enqueuedAtNanos = enqueuedAtNanos;
        }

        @Override
        public long enqueuedAtNanos() {
            return enqueuedAtNanos;
        }

        @Override
        public void run() {
            RequestExecutor executor = registration.executor();
            long now = executor.now();
            if (executor.overBudget(enqueuedAtNanos, now)) {
                answerLate(now);
            } else {
                process(registration, request, context, channel);
            }
        }

        void answerLate(long now) {
            registration.executor().countBusy();
            answer(request, RemotingCommand.response(ResponseCode.SYSTEM_BUSY,
                "[TIMEOUT_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: "
                    + (now - enqueuedAtNanos) / 1_000_000 + "ms, size of queue: "
                    + registration.executor().queueSize()), channel);
        }
    }

    /**
     * Answers SYSTEM_BUSY at once to the requests at the head of the queue that have overrun their
     * budget, so that their senders hear back while the executor's threads are still busy (RocketMQ
     * sweeps its queues on a timer; the next request to the same executor does it here).
     */
    private static void expireOverdue(RequestExecutor executor, long now) {
        Runnable head;
        while ((head = executor.peekQueued()) instanceof QueuedRequest overdue
            && executor.overBudget(overdue.enqueuedAtNanos, now) && executor.removeQueued(overdue)) {
            overdue.answerLate(now);
        }
    }

    private void process(Registration registration, RemotingCommand request, RequestContext context,
        ResponseChannel channel) {
        CompletableFuture<RemotingCommand> future;
        try {
            RemotingCommand refused = gate.refuse(request, context);
            if (refused != null) {
                answer(request, refused, channel);
                return;
            }
            future = registration.processor().processRequest(context, request);
        } catch (Exception e) {
            answer(request, failure(request, context, e), channel);
            return;
        } catch (Error e) {
            // Still answer and retire the request, but let the executor thread see the error.
            answer(request, failure(request, context, e), channel);
            throw e;
        }
        if (future == null) {
            answer(request, null, channel);
            return;
        }
        future.whenComplete((response, error) -> answer(request,
            error == null ? response : failure(request, context, unwrap(error)), channel));
    }

    private static Throwable unwrap(Throwable error) {
        return (error instanceof CompletionException || error instanceof ExecutionException) && error.getCause() != null
            ? error.getCause() : error;
    }

    private static RemotingCommand failure(RemotingCommand request, RequestContext context, Throwable error) {
        log.error("processor of request code {} from {} failed", request.code(), context.remoteAddress(), error);
        StackTraceElement[] trace = error.getStackTrace();
        String where = trace.length > 0 ? ", " + trace[0] : "";
        return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, error + where);
    }

    /** Writes the response unless the request was one-way or there is none, then retires the request. */
    private void answer(RemotingCommand request, RemotingCommand response, ResponseChannel channel) {
        if (response == null || request.isOneway()) {
            if (response != null) {
                response.releaseBody();
            }
            retire();
            return;
        }
        response.setOpaque(request.opaque());
        response.markResponse();
        response.setSerializeType(request.serializeType());
        channel.write(response, () -> {
            response.releaseBody();
            retire();
        });
    }

    private void retire() {
        if (inFlight.decrementAndGet() == 0 && draining) {
            drained.complete(null);
        }
    }
}
