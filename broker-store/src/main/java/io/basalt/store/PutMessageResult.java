package io.basalt.store;

import java.util.List;
import java.util.Objects;

/**
 * The status of a put and, when it was written, where ({@link #appendResult()}, otherwise null).
 * Immutable.
 */
public final class PutMessageResult {
    private final PutMessageStatus status;
    private final AppendMessageResult appendResult;
    private final String reason;
    private final List<BrokerMessage> appended;

    public PutMessageResult(PutMessageStatus status, AppendMessageResult appendResult) {
        this(status, appendResult, null, null);
    }

    private PutMessageResult(PutMessageStatus status, AppendMessageResult appendResult, String reason,
                             List<BrokerMessage> appended) {
        this.status = Objects.requireNonNull(status, "status");
        this.appendResult = appendResult;
        this.reason = reason;
        this.appended = appended;
    }

    /** A result for a message that was not written. */
    public static PutMessageResult rejected(PutMessageStatus status) {
        return new PutMessageResult(status, null, null, null);
    }

    /** A result for a message that was not written, with why (for the producer's remark). */
    public static PutMessageResult rejected(PutMessageStatus status, String reason) {
        return new PutMessageResult(status, null, Objects.requireNonNull(reason, "reason"), null);
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
        return newStatus == status ? this : new PutMessageResult(newStatus, appendResult, reason, appended);
    }

    /**
     * The messages as they were appended when a {@link PutMessageTransform} replaced one (a delayed message
     * redirected to SCHEDULE_TOPIC_XXXX): their physical offsets and offset message ids are the stored records'.
     * Null when the messages given to the put were appended themselves.
     */
    public List<BrokerMessage> appendedMessages() {
        return appended;
    }

    /** This result, saying which messages were appended (see {@link #appendedMessages()}). */
    PutMessageResult withAppended(List<BrokerMessage> messages) {
        return new PutMessageResult(status, appendResult, reason, List.copyOf(messages));
    }

    @Override
    public String toString() {
        return "PutMessageResult{" + status + (appendResult == null ? "" : ", " + appendResult)
            + (reason == null ? "" : ", " + reason) + '}';
    }
}
