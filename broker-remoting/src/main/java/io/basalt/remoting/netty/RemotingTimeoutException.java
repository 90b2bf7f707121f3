package io.basalt.remoting.netty;

/** No response within the call's timeout. */
public final class RemotingTimeoutException extends RemotingException {
    private static final long serialVersionUID = 1L;

    public RemotingTimeoutException(String message) {
        super(message, null);
    }
}
