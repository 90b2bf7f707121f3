package io.basalt.store.commitlog;

/**
 * Why a message cannot be stored, as found by {@link MessageRecordEncoder#validate}. The CommitLog
 * turns it into a status: {@link #PROPERTIES_TOO_LONG} is PROPERTIES_SIZE_EXCEEDED, every other
 * violation MESSAGE_ILLEGAL.
 */
public enum MessageViolation {
    /** Nothing wrong. */
    NONE("ok"),
    TOPIC_EMPTY("topic is empty"),
    /** The UTF-8 topic is longer than {@link RecordFormat#MAX_TOPIC_LENGTH} bytes. */
    TOPIC_TOO_LONG("topic longer than " + RecordFormat.MAX_TOPIC_LENGTH + " bytes"),
    /** The UTF-8 properties string is longer than {@link RecordFormat#MAX_PROPERTIES_LENGTH} bytes. */
    PROPERTIES_TOO_LONG("properties longer than " + RecordFormat.MAX_PROPERTIES_LENGTH + " bytes"),
    /** The body is longer than maxMessageSize. */
    BODY_TOO_LARGE("body larger than maxMessageSize"),
    /** The whole record is longer than maxMessageSize plus the 64 KiB reserve for headers and properties. */
    RECORD_TOO_LARGE("record larger than maxMessageSize + 64 KiB"),
    /** The record could never fit into one CommitLog file. */
    LARGER_THAN_FILE("record larger than a CommitLog file");

    private final String reason;

    MessageViolation(String reason) {
        this.reason = reason;
    }

    /** A short human-readable reason for logs and error remarks. */
    public String reason() {
        return reason;
    }

    /** True for the violation that RocketMQ reports as PROPERTIES_SIZE_EXCEEDED. */
    public boolean isPropertiesSizeExceeded() {
        return this == PROPERTIES_TOO_LONG;
    }
}
