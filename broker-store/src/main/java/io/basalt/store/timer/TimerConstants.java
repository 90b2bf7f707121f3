package io.basalt.store.timer;

/** RocketMQ 5.2.0's names and fixed numbers of timer messages ({@code MessageConst}, {@code TimerMessageStore}). */
public final class TimerConstants {
    public static final String TIMER_TOPIC = "rmq_sys_wheel_timer";
    public static final String TIMER_DELIVER_MS = "TIMER_DELIVER_MS";
    public static final String TIMER_DELAY_SEC = "TIMER_DELAY_SEC";
    public static final String TIMER_DELAY_MS = "TIMER_DELAY_MS";
    public static final String TIMER_OUT_MS = "TIMER_OUT_MS";
    public static final String TIMER_ENQUEUE_MS = "TIMER_ENQUEUE_MS";
    public static final String TIMER_DEQUEUE_MS = "TIMER_DEQUEUE_MS";
    public static final String TIMER_ROLL_TIMES = "TIMER_ROLL_TIMES";
    public static final String TIMER_DEL_UNIQKEY = "TIMER_DEL_UNIQKEY";
    public static final String REAL_TOPIC = "REAL_TOPIC";
    public static final String REAL_QID = "REAL_QID";
    /** What every timer property name contains: a properties string without it is passed on unparsed. */
    public static final String TIMER_PREFIX = "TIMER_";

    public static final int MAGIC_DEFAULT = 1;
    public static final int MAGIC_ROLL = 1 << 1;
    public static final int MAGIC_DELETE = 1 << 2;

    /** Slots of one half of the wheel (7 days at 1 s); the wheel holds twice as many. */
    public static final int SLOTS_TOTAL = 7 * 86_400;

    /** The transaction bits of the sysFlag (PREPARED 0x4, COMMIT 0x8, ROLLBACK 0xC). */
    public static final int TRANSACTION_MASK = 0xC;
    public static final int TRANSACTION_COMMIT = 0x8;

    private TimerConstants() {
    }

    public static boolean isDelete(int magic) {
        return (magic & MAGIC_DELETE) != 0;
    }

    public static boolean isRoll(int magic) {
        return (magic & MAGIC_ROLL) != 0;
    }

    /** RocketMQ's rounding: an exact multiple goes one slot back, anything else down to its slot (never early). */
    public static long roundDown(long deliverMs, long precisionMs) {
        return deliverMs % precisionMs == 0 ? deliverMs - precisionMs : deliverMs / precisionMs * precisionMs;
    }
}
