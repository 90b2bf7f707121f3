package io.basalt.broker.metrics;

/**
 * RocketMQ 5's {@code message_type} label of a sent message, decided from its properties as RocketMQ's
 * {@code BrokerMetricsManager.getMessageType} does: {@code TRAN_MSG=true} is a transaction message; else a
 * {@code __SHARDINGKEY} makes it fifo; else any of {@code __STARTDELIVERTIME}, {@code DELAY},
 * {@code TIMER_DELIVER_MS}, {@code TIMER_DELAY_SEC}, {@code TIMER_DELAY_MS} makes it delay; else normal.
 * {@link #of} scans the properties string in place: it runs on the send path and allocates nothing.
 */
public enum RocketMqMessageType {
    NORMAL("normal"), FIFO("fifo"), DELAY("delay"), TRANSACTION("transaction");

    private static final char NAME_VALUE = '\u0001';
    private static final char PAIR_END = '\u0002';
    private static final String[] DELAY_KEYS = {"__STARTDELIVERTIME", "DELAY", "TIMER_DELIVER_MS", "TIMER_DELAY_SEC",
        "TIMER_DELAY_MS"};
    private static final RocketMqMessageType[] VALUES = values();

    private final String label;

    RocketMqMessageType(String label) {
        this.label = label;
    }

    /** The label value. */
    public String label() {
        return label;
    }

    static RocketMqMessageType ofOrdinal(int ordinal) {
        return VALUES[ordinal];
    }

    /** The type of a message whose properties are {@code properties} (RocketMQ's encoded form; null is normal). */
    public static RocketMqMessageType of(String properties) {
        if (properties == null || properties.isEmpty()) {
            return NORMAL;
        }
        int tran = valueAt(properties, "TRAN_MSG");
        if (tran >= 0 && properties.regionMatches(true, tran, "true", 0, 4)
            && (tran + 4 == properties.length() || properties.charAt(tran + 4) == PAIR_END)) {
            return TRANSACTION;
        }
        if (valueAt(properties, "__SHARDINGKEY") >= 0) {
            return FIFO;
        }
        for (String key : DELAY_KEYS) {
            if (valueAt(properties, key) >= 0) {
                return DELAY;
            }
        }
        return NORMAL;
    }

    /** Where the value of property {@code name} starts in {@code properties}, or -1 when it has none. */
    static int valueAt(String properties, String name) {
        int from = 0;
        while (true) {
            int at = properties.indexOf(name, from);
            if (at < 0) {
                return -1;
            }
            int end = at + name.length();
            boolean startsPair = at == 0 || properties.charAt(at - 1) == PAIR_END;
            if (startsPair && end < properties.length() && properties.charAt(end) == NAME_VALUE) {
                return end + 1;
            }
            from = at + 1;
        }
    }
}
