package io.basalt.store.timer;

import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.PutMessageTransform;

import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

/**
 * The send-time step of timer messages, RocketMQ 5.2.0's {@code HookUtils.checkIfTimerMessage} and
 * {@code transformTimerMessage}: a message carrying TIMER_DELAY_SEC, TIMER_DELAY_MS or TIMER_DELIVER_MS
 * (and no positive DELAY, which wins and has those three removed) gets its deliver time rounded to the
 * wheel's precision (never early) in TIMER_OUT_MS, its real topic and queue in REAL_TOPIC / REAL_QID, and
 * goes to {@code rmq_sys_wheel_timer} queue 0. A message whose time has come is passed on as it is; one
 * too far ahead, unparsable, or a cancel not in the future is refused (WHEEL_TIMER_MSG_ILLEGAL); a full
 * slot refuses (WHEEL_TIMER_FLOW_CONTROL); with the wheel off a timer message is refused
 * (WHEEL_TIMER_NOT_ENABLE). Due re-deliveries, half/rollback messages, rolls and fired re-puts
 * (TIMER_OUT_MS present) pass unchanged. A properties string without "TIMER_" is never parsed.
 *
 * <p>Runs on senders' threads; stateless but for the wheel it reads for flow control.
 */
public final class TimerPutTransform implements PutMessageTransform {
    private final boolean enabled;
    private final long precisionMs;
    private final long maxDelayMs;
    private final int congestNum;
    private final TimerWheel wheelOrNull;
    private final LongSupplier clock;

    /**
     * @param wheelOrNull the wheel whose slot counts the flow control reads (null: no flow control)
     */
    public TimerPutTransform(boolean enabled, int precisionMs, int maxDelaySec, int congestNumEachSlot,
                             TimerWheel wheelOrNull, LongSupplier clock) {
        this.enabled = enabled;
        this.precisionMs = precisionMs;
        this.maxDelayMs = maxDelaySec * 1000L;
        this.congestNum = congestNumEachSlot;
        this.wheelOrNull = wheelOrNull;
        this.clock = clock;
    }

    /** WHEEL_TIMER_MSG_ILLEGAL's remark, as RocketMQ's SendMessageProcessor words it. */
    public static String illegalRemark(long maxDelayMs) {
        return String.format("timer message illegal, the delay time should not be bigger than the max delay %dms; "
            + "or if set del msg, the delay time should be bigger than the current time", maxDelayMs);
    }

    /** WHEEL_TIMER_FLOW_CONTROL's remark. */
    public static String flowControlRemark(int n) {
        return String.format("timer message is under flow control, max num limit is %d or the current value is greater "
            + "than %d and less than %d, trigger random flow control", n * 2L, (long) n, n * 2L);
    }

    public static final String NOT_ENABLE_REMARK = "accurate timer message is not enabled, timerWheelEnable is false";

    @Override
    public Decision apply(BrokerMessage message) {
        if (message.dueRedelivery() || message.propertiesString().indexOf(TimerConstants.TIMER_PREFIX) < 0) {
            return Decision.append(message);
        }
        int tx = message.sysFlag() & TimerConstants.TRANSACTION_MASK;
        if (tx != 0 && tx != TimerConstants.TRANSACTION_COMMIT) {
            return Decision.append(message);
        }
        Map<String, String> props = MessageProperties.parse(message.propertiesString());
        if (delayLevel(props) > 0) {
            boolean removed = props.remove(TimerConstants.TIMER_DELIVER_MS) != null;
            removed |= props.remove(TimerConstants.TIMER_DELAY_SEC) != null;
            removed |= props.remove(TimerConstants.TIMER_DELAY_MS) != null;
            return removed
                ? Decision.append(message.toBuilder().propertiesString(MessageProperties.toPropertiesString(props)).build())
                : Decision.append(message);
        }
        if (TimerConstants.TIMER_TOPIC.equals(message.topic()) || props.containsKey(TimerConstants.TIMER_OUT_MS)) {
            return Decision.append(message);
        }
        String sec = props.get(TimerConstants.TIMER_DELAY_SEC);
        String ms = props.get(TimerConstants.TIMER_DELAY_MS);
        String at = props.get(TimerConstants.TIMER_DELIVER_MS);
        if (sec == null && ms == null && at == null) {
            return Decision.append(message);
        }
        if (!enabled) {
            return Decision.refuse(PutMessageStatus.WHEEL_TIMER_NOT_ENABLE, NOT_ENABLE_REMARK);
        }
        long now = clock.getAsLong();
        long deliverMs;
        try {
            if (sec != null) {
                deliverMs = now + Long.parseLong(sec.trim()) * 1000;
            } else if (ms != null) {
                deliverMs = now + Long.parseLong(ms.trim());
            } else {
                deliverMs = Long.parseLong(at.trim());
            }
        } catch (NumberFormatException e) {
            return Decision.refuse(PutMessageStatus.WHEEL_TIMER_MSG_ILLEGAL, illegalRemark(maxDelayMs));
        }
        if (deliverMs <= now) {
            return props.containsKey(TimerConstants.TIMER_DEL_UNIQKEY)
                ? Decision.refuse(PutMessageStatus.WHEEL_TIMER_MSG_ILLEGAL, illegalRemark(maxDelayMs))
                : Decision.append(message);
        }
        if (deliverMs - now > maxDelayMs) {
            return Decision.refuse(PutMessageStatus.WHEEL_TIMER_MSG_ILLEGAL, illegalRemark(maxDelayMs));
        }
        long slotMs = TimerConstants.roundDown(deliverMs, precisionMs);
        if (isReject(slotMs)) {
            return Decision.refuse(PutMessageStatus.WHEEL_TIMER_FLOW_CONTROL, flowControlRemark(congestNum));
        }
        props.put(TimerConstants.TIMER_OUT_MS, Long.toString(slotMs));
        props.put(TimerConstants.REAL_TOPIC, message.topic());
        props.put(TimerConstants.REAL_QID, Integer.toString(message.queueId()));
        return Decision.append(message.toBuilder().topic(TimerConstants.TIMER_TOPIC).queueId(0)
            .propertiesString(MessageProperties.toPropertiesString(props)).build());
    }

    private static int delayLevel(Map<String, String> props) {
        String d = props.get(MessageProperties.DELAY_TIME_LEVEL);
        if (d == null) {
            return 0;
        }
        try {
            return Integer.parseInt(d.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** RocketMQ's {@code isReject}: n ≤ N accept, n ≥ 2N reject, in between reject with probability (n − N) / N. */
    private boolean isReject(long slotMs) {
        if (wheelOrNull == null || congestNum == Integer.MAX_VALUE) {
            return false;
        }
        long n = wheelOrNull.slot(slotMs).num();
        if (n <= congestNum) {
            return false;
        }
        if (n >= congestNum * 2L) {
            return true;
        }
        return ThreadLocalRandom.current().nextLong(congestNum) < n - congestNum;
    }
}
