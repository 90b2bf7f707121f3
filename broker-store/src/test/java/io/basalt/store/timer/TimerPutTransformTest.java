package io.basalt.store.timer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.PutMessageTransform.Decision;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** RocketMQ's checkIfTimerMessage and transformTimerMessage rules. */
class TimerPutTransformTest {
    private static final long NOW = 1_700_000_000_000L;
    private final TimerPutTransform transform = new TimerPutTransform(true, 1000, 3600, Integer.MAX_VALUE, null, () -> NOW);

    @TempDir
    Path root;

    private static BrokerMessage message(String... props) {
        Map<String, String> map = new LinkedHashMap<>();
        map.put("UNIQ_KEY", "U1");
        for (int i = 0; i < props.length; i += 2) {
            map.put(props[i], props[i + 1]);
        }
        return BrokerMessage.builder().topic("T").queueId(3).body(new byte[] {1}).properties(map).build();
    }

    private static Map<String, String> props(Decision d) {
        return MessageProperties.parse(d.message().propertiesString());
    }

    @Test
    void theDeliverTimeIsRoundedDownToItsSlotAndAnExactMultipleGoesOneSlotBack() {
        Decision exact = transform.apply(message("TIMER_DELIVER_MS", "1700000005000"));
        Decision inside = transform.apply(message("TIMER_DELIVER_MS", "1700000005300"));

        assertEquals("1700000004000", props(exact).get("TIMER_OUT_MS"));
        assertEquals("1700000005000", props(inside).get("TIMER_OUT_MS"));
        assertEquals("rmq_sys_wheel_timer", exact.message().topic());
        assertEquals(0, exact.message().queueId());
        assertEquals("T", props(exact).get("REAL_TOPIC"));
        assertEquals("3", props(exact).get("REAL_QID"));
        assertEquals("1700000005000", props(exact).get("TIMER_DELIVER_MS"), "the client's property stays");
    }

    @Test
    void relativeDelaysCountFromTheBrokersClockSecondsFirst() {
        assertEquals("1700000009000", props(transform.apply(message("TIMER_DELAY_SEC", "10", "TIMER_DELAY_MS", "1"))).get("TIMER_OUT_MS"));
        assertEquals("1700000001000", props(transform.apply(message("TIMER_DELAY_MS", "1500"))).get("TIMER_OUT_MS"));
    }

    @Test
    void aTimeBeyondTheMaxDelayOrUnparsableIsIllegal() {
        Decision far = transform.apply(message("TIMER_DELAY_SEC", "3601"));
        Decision garbage = transform.apply(message("TIMER_DELIVER_MS", "soon"));

        assertEquals(PutMessageStatus.WHEEL_TIMER_MSG_ILLEGAL, far.refusal());
        assertEquals("timer message illegal, the delay time should not be bigger than the max delay 3600000ms; or if set"
            + " del msg, the delay time should be bigger than the current time", far.reason());
        assertEquals(PutMessageStatus.WHEEL_TIMER_MSG_ILLEGAL, garbage.refusal());
        assertFalse(transform.apply(message("TIMER_DELAY_SEC", "3600")).refused(), "exactly the max delay is accepted");
    }

    @Test
    void aTimeThatHasComeIsStoredAsAPlainMessageButACancelMustBeInTheFuture() {
        BrokerMessage past = message("TIMER_DELIVER_MS", String.valueOf(NOW));
        assertSame(past, transform.apply(past).message());
        Decision cancel = transform.apply(message("TIMER_DELIVER_MS", String.valueOf(NOW - 1), "TIMER_DEL_UNIQKEY", "U0"));
        assertEquals(PutMessageStatus.WHEEL_TIMER_MSG_ILLEGAL, cancel.refusal());
        Decision futureCancel = transform.apply(message("TIMER_DELIVER_MS", String.valueOf(NOW + 5000), "TIMER_DEL_UNIQKEY", "U0"));
        assertEquals("rmq_sys_wheel_timer", futureCancel.message().topic());
    }

    @Test
    void aDelayLevelWinsAndTheClientTimerPropertiesAreRemoved() {
        Decision d = transform.apply(message("DELAY", "3", "TIMER_DELAY_SEC", "10", "TIMER_DELIVER_MS", "1", "TIMER_DELAY_MS", "5"));

        assertEquals("T", d.message().topic());
        Map<String, String> p = props(d);
        assertEquals("3", p.get("DELAY"));
        assertNull(p.get("TIMER_DELAY_SEC"));
        assertNull(p.get("TIMER_DELIVER_MS"));
        assertNull(p.get("TIMER_DELAY_MS"));
    }

    @Test
    void rollsFiredReputsDueRedeliveriesAndHalfMessagesPassUnchanged() {
        BrokerMessage fired = message("TIMER_OUT_MS", "1700000004000", "TIMER_DELAY_SEC", "10");
        BrokerMessage roll = message("TIMER_DELAY_SEC", "10").toBuilder().topic("rmq_sys_wheel_timer").build();
        BrokerMessage due = message("TIMER_DELAY_SEC", "10").toBuilder().dueRedelivery(true).build();
        BrokerMessage prepared = message("TIMER_DELAY_SEC", "10").toBuilder().sysFlag(0x4).build();
        BrokerMessage rollback = message("TIMER_DELAY_SEC", "10").toBuilder().sysFlag(0xC).build();
        BrokerMessage commit = message("TIMER_DELAY_SEC", "10").toBuilder().sysFlag(0x8).build();
        BrokerMessage plain = message("KEYS", "k");

        assertSame(fired, transform.apply(fired).message());
        assertSame(roll, transform.apply(roll).message());
        assertSame(due, transform.apply(due).message());
        assertSame(prepared, transform.apply(prepared).message());
        assertSame(rollback, transform.apply(rollback).message());
        assertSame(plain, transform.apply(plain).message(), "no TIMER_ in the properties: passed on unparsed");
        assertEquals("rmq_sys_wheel_timer", transform.apply(commit).message().topic(), "a committed one is a timer");
    }

    @Test
    void withTheWheelOffATimerMessageIsRefusedAndOthersPass() {
        TimerPutTransform off = new TimerPutTransform(false, 1000, 3600, Integer.MAX_VALUE, null, () -> NOW);
        Decision d = off.apply(message("TIMER_DELAY_SEC", "10"));
        assertEquals(PutMessageStatus.WHEEL_TIMER_NOT_ENABLE, d.refusal());
        assertEquals("accurate timer message is not enabled, timerWheelEnable is false", d.reason());
        assertFalse(off.apply(message("KEYS", "k")).refused());
    }

    @Test
    void aSlotHoldingTwiceTheCongestNumberRefusesNewTimers() throws IOException {
        try (TimerWheel wheel = TimerWheel.open(root.resolve("timerwheel"), 1000)) {
            TimerPutTransform limited = new TimerPutTransform(true, 1000, 3600, 2, wheel, () -> NOW);
            assertFalse(limited.apply(message("TIMER_DELAY_MS", "5300")).refused(), "an empty slot accepts");
            wheel.putSlot(NOW + 5000, 0, 0, 4, 0);
            Decision d = limited.apply(message("TIMER_DELAY_MS", "5300"));
            assertEquals(PutMessageStatus.WHEEL_TIMER_FLOW_CONTROL, d.refusal());
            assertEquals("timer message is under flow control, max num limit is 4 or the current value is greater than 2"
                + " and less than 4, trigger random flow control", d.reason());
            wheel.putSlot(NOW + 5000, 0, 0, 2, 0);
            assertTrue(!limited.apply(message("TIMER_DELAY_MS", "5300")).refused(), "at the limit it accepts");
        }
    }
}
