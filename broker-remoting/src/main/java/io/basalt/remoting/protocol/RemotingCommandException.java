package io.basalt.remoting.protocol;

/** A command or one of its headers could not be decoded: the bytes or fields break the protocol. */
public final class RemotingCommandException extends Exception {
    private static final long serialVersionUID = 1L;

    public RemotingCommandException(String message) {
        super(message);
    }

    public RemotingCommandException(String message, Throwable cause) {
        super(message, cause);
    }
}
