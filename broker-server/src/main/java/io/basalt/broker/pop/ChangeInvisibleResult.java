package io.basalt.broker.pop;

/**
 * The answer to CHANGE_MESSAGE_INVISIBLETIME: the outcome and, on success, the new receipt, whose field 0 is the
 * message's own offset (the start offset of the checkpoint just written), so a later ACK matches it.
 */
public record ChangeInvisibleResult(PopOutcome outcome, PopHandle newHandle) {
}
