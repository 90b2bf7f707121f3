package io.basalt.remoting.netty;

import io.basalt.remoting.protocol.RemotingCommand;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

/**
 * Requests sent and waiting for their responses, by opaque. An entry leaves the table exactly once:
 * when its response arrives, its write fails, its connection closes, or the timer fires; whoever
 * removes it completes its future, so a future never completes twice or late. Thread-safe.
 */
final class PendingRequests {
    private final Timer timer;
    private final ConcurrentMap<Integer, Pending> table = new ConcurrentHashMap<>();

    /** One request waiting for its response. */
    private static final class Pending {
        final Channel channel;
        final CompletableFuture<RemotingCommand> future = new CompletableFuture<>();
        volatile Timeout timeout;

        Pending(Channel channel) {
            this.channel = channel;
        }

        void cancelTimer() {
            Timeout t = timeout;
            if (t != null) {
                t.cancel();
            }
        }
    }

    PendingRequests(Timer timer) {
        this.timer = timer;
    }

    /**
     * Writes {@code request} to {@code channel}; the future completes with the response or a
     * {@link RemotingException}. The timer fires after {@code timeoutNanos}, what is left of the
     * caller's {@code callTimeoutMs}.
     */
    CompletableFuture<RemotingCommand> send(Channel channel, RemotingCommand request, long timeoutNanos, long callTimeoutMs,
        String peer) {
        int opaque = request.opaque();
        Pending entry = new Pending(channel);
        if (table.putIfAbsent(opaque, entry) != null) {
            return CompletableFuture.failedFuture(
                new RemotingSendRequestException("opaque " + opaque + " already in flight to " + peer, null));
        }
        entry.timeout = timer.newTimeout(t -> {
            if (table.remove(opaque, entry)) {
                entry.future.completeExceptionally(new RemotingTimeoutException("no response from " + peer
                    + " to request code " + request.code() + " (opaque " + opaque + ") within " + callTimeoutMs + " ms"));
            }
        }, timeoutNanos, TimeUnit.NANOSECONDS);
        channel.writeAndFlush(request).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess() && table.remove(opaque, entry)) {
                entry.cancelTimer();
                entry.future.completeExceptionally(new RemotingSendRequestException("cannot send request code "
                    + request.code() + " to " + peer, f.cause()));
            }
        });
        return entry.future;
    }

    /** Completes the request this response answers; false when nobody waits for it (any more). */
    boolean complete(RemotingCommand response) {
        Pending entry = table.remove(response.opaque());
        if (entry == null) {
            return false;
        }
        entry.cancelTimer();
        entry.future.complete(response);
        return true;
    }

    /** Fails every request sent on {@code channel} (it closed). */
    void failAllOf(Channel channel) {
        table.forEach((opaque, entry) -> {
            if (entry.channel == channel && table.remove(opaque, entry)) {
                entry.cancelTimer();
                entry.future.completeExceptionally(new RemotingConnectException("connection to "
                    + channel.remoteAddress() + " closed before the response (opaque " + opaque + ")", null));
            }
        });
    }

    /** Fails every request (shutdown). */
    void failAll(String reason) {
        table.forEach((opaque, entry) -> {
            if (table.remove(opaque, entry)) {
                entry.cancelTimer();
                entry.future.completeExceptionally(new RemotingConnectException(reason, null));
            }
        });
    }

    int size() {
        return table.size();
    }
}
