package io.basalt.store;

/** Which side of a timestamp {@code offsetForTimestamp} answers with (RocketMQ's BoundaryType). */
public enum BoundaryType {
    /** The first message stored at or after the timestamp. */
    LOWER,
    /** The last message stored at or before the timestamp. */
    UPPER
}
