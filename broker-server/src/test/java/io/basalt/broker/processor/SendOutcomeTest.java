package io.basalt.broker.processor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import org.junit.jupiter.api.Test;

/** The SEND_MESSAGE response written from a send's outcome: RocketMQ's header for a stored send, none for a refusal. */
class SendOutcomeTest {
    @Test
    void aStoredSendAnswersRocketMqsSendHeader() {
        SendOutcome stored = new SendOutcome(ResponseCode.FLUSH_SLAVE_TIMEOUT, "no slave acknowledged it in time",
            "7F00000100002A9F0000000000000010", 3, 42, 16, "U-1");
        RemotingCommand r = stored.toResponse();

        assertTrue(stored.stored());
        assertEquals(ResponseCode.FLUSH_SLAVE_TIMEOUT, r.code());
        assertEquals("no slave acknowledged it in time", r.remark());
        assertEquals(Map.of("msgId", "7F00000100002A9F0000000000000010", "queueId", "3", "queueOffset", "42",
            "transactionId", "U-1", "MSG_REGION", "DefaultRegion", "TRACE_ON", "true"), r.extFields());
    }

    @Test
    void aBatchHasNoTransactionId() {
        RemotingCommand r = new SendOutcome(ResponseCode.SUCCESS, null, "A,B", 0, 7, 0, null).toResponse();
        assertEquals("A,B", r.extFields().get("msgId"));
        assertFalse(r.extFields().containsKey("transactionId"));
    }

    @Test
    void aRefusalAnswersItsCodeAndRemarkOnly() {
        SendOutcome refused = SendOutcome.refused(ResponseCode.NO_PERMISSION, "the topic[T] sending message is forbidden");
        RemotingCommand r = refused.toResponse();

        assertFalse(refused.stored());
        assertEquals(-1, refused.queueOffset());
        assertEquals(ResponseCode.NO_PERMISSION, r.code());
        assertEquals("the topic[T] sending message is forbidden", r.remark());
        assertNull(r.extFields());
    }
}
