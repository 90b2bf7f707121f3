package io.basalt.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The {@link PutMessageTransform} steps of one store, in the order they were added, and their use on a
 * put. Adding copies the array (rare, at start-up); a put reads it once and, with no steps, costs
 * nothing. Thread-safe.
 */
final class PutTransforms {

    /** What the steps made of a put: the messages to append, or the refusal to answer. */
    record Outcome(List<BrokerMessage> messages, PutMessageResult refusal) {
        static Outcome refused(PutMessageStatus status, String reason) {
            return new Outcome(null, PutMessageResult.rejected(status, reason));
        }
    }

    private volatile PutMessageTransform[] steps = new PutMessageTransform[0];

    synchronized void add(PutMessageTransform step) {
        PutMessageTransform[] current = steps;
        PutMessageTransform[] next = Arrays.copyOf(current, current.length + 1);
        next[current.length] = Objects.requireNonNull(step, "step");
        steps = next;
    }

    boolean isEmpty() {
        return steps.length == 0;
    }

    /** Runs every step on {@code message}, each on the previous one's output. */
    Outcome apply(BrokerMessage message) {
        PutMessageTransform.Decision decision = decide(steps, message);
        return decision.refused()
            ? Outcome.refused(decision.refusal(), decision.reason())
            : new Outcome(List.of(decision.message()), null);
    }

    /**
     * Runs every step on each message of {@code batch}. A batch is one append to one queue, so a step
     * that sends a message of it to another topic or queue refuses the whole batch.
     */
    Outcome applyToBatch(List<BrokerMessage> batch) {
        PutMessageTransform[] current = steps;
        List<BrokerMessage> result = new ArrayList<>(batch.size());
        BrokerMessage first = batch.get(0);
        for (BrokerMessage message : batch) {
            PutMessageTransform.Decision decision = decide(current, message);
            if (decision.refused()) {
                return Outcome.refused(decision.refusal(), decision.reason());
            }
            BrokerMessage m = decision.message();
            if (!m.topic().equals(first.topic()) || m.queueId() != first.queueId()) {
                return Outcome.refused(PutMessageStatus.MESSAGE_ILLEGAL, "a batch message cannot be redirected to topic "
                    + m.topic() + " queue " + m.queueId() + "; send it on its own");
            }
            result.add(m);
        }
        return new Outcome(result, null);
    }

    private static PutMessageTransform.Decision decide(PutMessageTransform[] steps, BrokerMessage message) {
        PutMessageTransform.Decision decision = PutMessageTransform.Decision.append(message);
        for (PutMessageTransform step : steps) {
            decision = step.apply(decision.message());
            if (decision.refused()) {
                return decision;
            }
        }
        return decision;
    }
}
