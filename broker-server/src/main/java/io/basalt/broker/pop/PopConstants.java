package io.basalt.broker.pop;

/** RocketMQ's POP names Basalt shares with clients and stored data. */
public final class PopConstants {
    /** The message property holding the receipt ({@code MessageConst.PROPERTY_POP_CK}). */
    public static final String POP_CK = "POP_CK";
    /** The first pop time of a re-delivered message ({@code MessageConst.PROPERTY_FIRST_POP_TIME}). */
    public static final String FIRST_POP_TIME = "1ST_POP_TIME";
    /** Where a timer message (a CK, an ACK) waits until due ({@code TimerMessageStore.TIMER_TOPIC}). */
    static final String WHEEL_TIMER_TOPIC = "rmq_sys_wheel_timer";
    /** A waiting timer message's topic ({@code MessageConst.PROPERTY_REAL_TOPIC}). */
    static final String REAL_TOPIC = "REAL_TOPIC";
    /** The revive topic's reader group ({@code PopAckConstants.REVIVE_GROUP}). */
    public static final String REVIVE_GROUP = "CID_RMQ_SYS_REVIVE_GROUP";
    /** The revive topic of a cluster: {@code rmq_sys_REVIVE_LOG_<cluster>}. */
    public static String reviveTopic(String brokerClusterName) {
        return "rmq_sys_REVIVE_LOG_" + brokerClusterName;
    }

    private PopConstants() {
    }
}
