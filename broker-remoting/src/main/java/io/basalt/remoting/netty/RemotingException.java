package io.basalt.remoting.netty;

/** A remote call failed: no connection, the request could not be sent, or no response in time. */
public class RemotingException extends Exception {
    private static final long serialVersionUID = 1L;

    public RemotingException(String message, Throwable cause) {
        super(message, cause);
    }
}
