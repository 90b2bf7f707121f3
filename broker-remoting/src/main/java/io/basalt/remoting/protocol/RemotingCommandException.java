package io.basalt.remoting.protocol;

/**
 * A command or one of its headers could not be decoded: the bytes or fields break the protocol.
 * When the broken command's opaque could still be read, {@link #opaque()} carries it so that the
 * sender can be told which request failed.
 */
public final class RemotingCommandException extends Exception {
    private static final long serialVersionUID = 1L;

    private final Integer opaque;

    public RemotingCommandException(String message) {
        this(message, null, null);
    }

    public RemotingCommandException(String message, Throwable cause) {
        this(message, null, cause);
    }

    private RemotingCommandException(String message, Integer opaque, Throwable cause) {
        super(message, cause);
        this.opaque = opaque;
    }

    /** The same failure, naming the opaque of the command it happened in. */
    RemotingCommandException withOpaque(int opaque) {
        return new RemotingCommandException(getMessage(), opaque, getCause());
    }

    /** The opaque of the broken command, or null when it could not be read. */
    public Integer opaque() {
        return opaque;
    }
}
