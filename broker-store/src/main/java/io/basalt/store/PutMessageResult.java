package io.basalt.store;

import java.util.Objects;

/**
 * The status of a put and, when it was written, where ({@link #appendResult()}, otherwise null).
 * Immutable.
 */
public final class PutMessageResult {
    private final PutMessageStatus status;
    private final AppendMessageResult appendResult;

    public PutMessageResult(PutMessageStatus status, AppendMessageResult appendResult) {
        this.status = Objects.requireNonNull(status, "status");
        this.appendResult = appendResult;
    }

    /** A result for a message that was not written. */
    public static PutMessageResult rejected(PutMessageStatus status) {
        return new PutMessageResult(status, null);
    }

    public PutMessageStatus status() {
        return status;
    }

    /** Where the message was written, or null if it was not. */
    public AppendMessageResult appendResult() {
        return appendResult;
    }

    public boolean isOk() {
        return status == PutMessageStatus.PUT_OK;
    }

    /** The same append with another status (a flush or replica wait that did not succeed). */
    public PutMessageResult withStatus(PutMessageStatus newStatus) {
        return newStatus == status ? this : new PutMessageResult(newStatus, appendResult);
    }

    @Override
    public String toString() {
        return "PutMessageResult{" + status + (appendResult == null ? "" : ", " + appendResult) + '}';
    }
}
