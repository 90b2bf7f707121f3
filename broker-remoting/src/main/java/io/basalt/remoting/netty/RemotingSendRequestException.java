package io.basalt.remoting.netty;

/** The request could not be written to the connection. */
public final class RemotingSendRequestException extends RemotingException {
    private static final long serialVersionUID = 1L;

    public RemotingSendRequestException(String message, Throwable cause) {
        super(message, cause);
    }
}
