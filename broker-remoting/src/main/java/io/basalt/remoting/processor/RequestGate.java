package io.basalt.remoting.processor;

import io.basalt.remoting.protocol.RemotingCommand;

/**
 * What every request passes before its processor runs: authentication and authorization. Called on the request's
 * executor thread (a signature over a large body is not computed on an event loop), after the request code is known
 * to have a processor, before anything of the request is executed.
 */
@FunctionalInterface
public interface RequestGate {
    /** Lets everything through. */
    RequestGate OPEN = (request, context) -> null;

    /**
     * @return null to let the request through, or the response that refuses it (never executed; a one-way request
     *         gets no answer)
     */
    RemotingCommand refuse(RemotingCommand request, RequestContext context);
}
