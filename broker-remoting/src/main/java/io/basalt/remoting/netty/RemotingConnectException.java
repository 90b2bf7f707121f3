package io.basalt.remoting.netty;

/** No connection to the address, or the connection closed before the response came. */
public final class RemotingConnectException extends RemotingException {
    private static final long serialVersionUID = 1L;

    public RemotingConnectException(String message, Throwable cause) {
        super(message, cause);
    }
}
