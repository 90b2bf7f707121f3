package io.basalt.remoting.processor;

import io.basalt.remoting.protocol.RemotingCommand;
import java.util.concurrent.CompletableFuture;

/**
 * Handles the requests of the codes it is registered for. Called on the business executor it was
 * registered with, one call per request; implementations must be safe for concurrent calls when that
 * executor has more than one thread.
 *
 * <p>The returned future completes with the response; the server then writes it on the connection's
 * event loop, with the request's opaque. A processor that answers at once returns
 * {@code CompletableFuture.completedFuture(response)}; one that answers later (a flush, a replica, a
 * long poll) returns a future it completes from any thread. A null future, or a future completed
 * with null, means no response. A thrown exception or an exceptionally completed future is answered
 * with {@code SYSTEM_ERROR} and a remark naming the exception. Responses to one-way requests are
 * never written.
 */
@FunctionalInterface
public interface RequestProcessor {
    CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) throws Exception;
}
