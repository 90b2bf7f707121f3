package io.basalt.broker.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RocketMqMessageTypeTest {
    private static String props(String... pairs) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < pairs.length; i += 2) {
            sb.append(pairs[i]).append('\u0001').append(pairs[i + 1]).append('\u0002');
        }
        return sb.toString();
    }

    @Test
    void rocketMqsOrderOfRules() {
        assertEquals(RocketMqMessageType.NORMAL, RocketMqMessageType.of(null));
        assertEquals(RocketMqMessageType.NORMAL, RocketMqMessageType.of(props("KEYS", "k", "TAGS", "a")));
        assertEquals(RocketMqMessageType.TRANSACTION, RocketMqMessageType.of(props("TRAN_MSG", "true", "DELAY", "3")));
        assertEquals(RocketMqMessageType.TRANSACTION, RocketMqMessageType.of(props("TRAN_MSG", "TRUE")));
        assertEquals(RocketMqMessageType.FIFO, RocketMqMessageType.of(props("TRAN_MSG", "false", "__SHARDINGKEY", "o1")));
        assertEquals(RocketMqMessageType.FIFO, RocketMqMessageType.of(props("__SHARDINGKEY", "o1", "DELAY", "3")));
        for (String delayKey : new String[] {"__STARTDELIVERTIME", "DELAY", "TIMER_DELIVER_MS", "TIMER_DELAY_SEC",
            "TIMER_DELAY_MS"}) {
            assertEquals(RocketMqMessageType.DELAY, RocketMqMessageType.of(props("KEYS", "k", delayKey, "5")), delayKey);
        }
    }

    @Test
    void aNameInsideAnotherNameOrAValueDoesNotCount() {
        assertEquals(RocketMqMessageType.NORMAL, RocketMqMessageType.of(props("MY_DELAY", "3", "KEYS", "DELAY")));
        assertEquals(RocketMqMessageType.NORMAL, RocketMqMessageType.of(props("TRAN_MSG", "truex")));
        assertEquals(RocketMqMessageType.NORMAL, RocketMqMessageType.of(props("KEYS", "TRAN_MSG")));
        assertEquals(RocketMqMessageType.TRANSACTION, RocketMqMessageType.of("TRAN_MSG\u0001true"));
    }
}
