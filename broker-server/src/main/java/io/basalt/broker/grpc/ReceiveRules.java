package io.basalt.broker.grpc;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.ReceiveMessageRequest;
import apache.rocketmq.v2.Status;
import io.basalt.broker.pop.PopHandle;
import io.basalt.broker.pop.PopOutcome;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.StoredMessage;
import java.util.Arrays;

/** ReceiveMessage's rules that need no broker state (§2.6.5): polling and invisible times, statuses, tags, mapping. */
final class ReceiveRules {
    private ReceiveRules() {
    }

    /**
     * The pop's wait: {@code long_polling_timeout} (else the maximum) clamped to [5 s, 20 s], cut to what the call's
     * deadline leaves; -1 when that is below the minimum (ILLEGAL_POLLING_TIME).
     *
     * @param remainingMs time left before the call's deadline, or -1 when it has none
     */
    static long pollingTime(ReceiveMessageRequest request, long remainingMs) {
        long poll = request.hasLongPollingTimeout() ? ReceiveRules.millis(request.getLongPollingTimeout())
            : GrpcConsumption.MAX_POLL_MS;
        poll = Math.max(GrpcConsumption.MIN_POLL_MS, Math.min(GrpcConsumption.MAX_POLL_MS, poll));
        if (remainingMs >= 0) {
            long left = remainingMs - GrpcConsumption.DEADLINE_MARGIN_MS;
            if (poll > left) {
                if (left < GrpcConsumption.MIN_POLL_MS) {
                    return -1;
                }
                poll = left;
            }
        }
        return poll;
    }

    /** {@code invisible_duration} when in [10 s, 12 h]; -1 otherwise (ILLEGAL_INVISIBLE_TIME). */
    static long invisibleTime(ReceiveMessageRequest request) {
        if (!request.hasInvisibleDuration()) {
            return -1;
        }
        long ms = ReceiveRules.millis(request.getInvisibleDuration());
        return ms < GrpcConsumption.MIN_INVISIBLE_MS || ms > GrpcConsumption.MAX_INVISIBLE_MS ? -1 : ms;
    }

    static long millis(com.google.protobuf.Duration d) {
        return d.getSeconds() * 1000 + d.getNanos() / 1_000_000;
    }

    /** The receive's status for a pop outcome: nothing to pop is MESSAGE_NOT_FOUND, a full poll table 429. */
    static Status statusOf(PopOutcome outcome) {
        return switch (outcome.code()) {
            case ResponseCode.SUCCESS -> GrpcCodes.OK;
            case ResponseCode.POLLING_TIMEOUT, ResponseCode.PULL_NOT_FOUND, ResponseCode.NO_MESSAGE ->
                GrpcCodes.status(Code.MESSAGE_NOT_FOUND, "no new message");
            case ResponseCode.POLLING_FULL -> GrpcCodes.status(Code.TOO_MANY_REQUESTS, "the broker's POP polling table"
                + " is full: " + outcome.remark());
            default -> GrpcCodes.fromRemoting(outcome.code(), outcome.remark());
        };
    }

    /** Whether a message with {@code tag} matches a TAG expression (null: not a TAG filter, everything matches). */
    static boolean tagMatches(String tagExpression, String tag) {
        if (tagExpression == null || tagExpression.isBlank() || "*".equals(tagExpression.trim())) {
            return true;
        }
        return tag != null && Arrays.stream(tagExpression.split("\\|\\|")).map(String::trim).anyMatch(tag::equals);
    }

    /** The stored message as a 5.x client receives it: the original topic and the 9-field receipt handle. */
    static Message toMessage(StoredMessage stored, String topic, PopHandle handle) {
        Message m = StoredMessageMapping.toMessage(stored, topic, handle.queueId());
        return m.toBuilder().setSystemProperties(m.getSystemProperties().toBuilder()
            .setReceiptHandle(handle.encode())).build();
    }
}
