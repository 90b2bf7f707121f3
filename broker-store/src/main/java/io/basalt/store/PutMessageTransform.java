package io.basalt.store;

import java.util.Objects;

/**
 * A step every message takes on its way into the store, before the CommitLog appends it: RocketMQ's
 * put-message hooks. A transform may pass a message on unchanged, replace it (a delay level or timer
 * redirects it to a system topic, keeping the real topic and queue in its properties; a transactional
 * half message goes to the half topic) or refuse it with a status and a reason the producer is told.
 * Register transforms with {@link MessageStore#addPutTransform}; they run in registration order, each
 * on the previous one's output, for every single put and every message of a batch.
 *
 * <p>Called on the sender's thread, outside the put lock and before anything is written; must not
 * block. A transform must be thread-safe: many senders call it at once.
 */
@FunctionalInterface
public interface PutMessageTransform {

    /** What to do with {@code message}: {@link Decision#append append} it (or a replacement), or refuse it. */
    Decision apply(BrokerMessage message);

    /**
     * A transform's answer: the message to append, or the status and reason of a refusal (nothing
     * is written then).
     */
    record Decision(BrokerMessage message, PutMessageStatus refusal, String reason) {

        public Decision {
            if ((message == null) == (refusal == null)) {
                throw new IllegalArgumentException("a decision is either a message to append or a refusal");
            }
            if (refusal == PutMessageStatus.PUT_OK) {
                throw new IllegalArgumentException("PUT_OK is not a refusal");
            }
        }

        /** Append {@code message} (the one given, or its replacement). */
        public static Decision append(BrokerMessage message) {
            return new Decision(Objects.requireNonNull(message, "message"), null, null);
        }

        /** Write nothing and answer {@code status}; {@code reason} goes to the producer's remark. */
        public static Decision refuse(PutMessageStatus status, String reason) {
            return new Decision(null, Objects.requireNonNull(status, "status"), Objects.requireNonNull(reason, "reason"));
        }

        public boolean refused() {
            return refusal != null;
        }
    }
}
