package io.basalt.remoting.processor;

import io.basalt.remoting.protocol.RemotingCommand;

/** The connection a request arrived on, as the dispatcher sees it. Implementations accept calls from any thread. */
public interface ResponseChannel {
    /**
     * Writes {@code response} on the connection's event loop, then runs {@code whenDone} once the
     * write has finished or failed (or at once when the connection is already gone).
     */
    void write(RemotingCommand response, Runnable whenDone);
}
