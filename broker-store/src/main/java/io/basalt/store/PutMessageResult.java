package io.basalt.store;

import java.util.Objects;

/**
 * The status of a put and, when it was written, where ({@link #appendResult()}, otherwise null).
 * Immutable.
 */
public final class PutMessageResult {
    private final PutMessageStatus status;
    private final AppendMessageResult appendResult;
    private final String reason;

    public PutMessageResult(PutMessageStatus status, AppendMessageResult appendResult) {
        this(status, appendResult, null);
    }

    private PutMessageResult(PutMessageStatus status, AppendMessageResult appendResult, String reason) {
        this.status = Objects.requireNonNull(status, "status");
        this.appendResult = appendResult;
        this.reason = reason;
    }

    /** A result for a message that was not written. */
    public static PutMessageResult rejected(PutMessageStatus status) {
        return new PutMessageResult(status, null, null);
    }

    /** A result for a message that was not written, with why (for the producer's remark). */
    public static PutMessageResult rejected(PutMessageStatus status, String reason) {
        return new PutMessageResult(status, null, Objects.requireNonNull(reason, "reason"));
    }

    /** Why the message was refused, when the refusal said (a {@link PutMessageTransform}); else null. */
    public String reason() {
        return reason;
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
        return newStatus == status ? this : new PutMessageResult(newStatus, appendResult, reason);
    }

    @Override
    public String toString() {
        return "PutMessageResult{" + status + (appendResult == null ? "" : ", " + appendResult)
            + (reason == null ? "" : ", " + reason) + '}';
    }
}
