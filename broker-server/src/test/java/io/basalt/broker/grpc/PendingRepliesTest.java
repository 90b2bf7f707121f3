package io.basalt.broker.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.Status;
import apache.rocketmq.v2.TelemetryCommand;
import apache.rocketmq.v2.ThreadStackTrace;
import io.basalt.remoting.netty.RemotingTimeoutException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** Replies on the Telemetry stream matched to the command that waits for them, by nonce, within a timeout. */
class PendingRepliesTest {
    private final PendingReplies replies = new PendingReplies();

    private static TelemetryCommand stack(String nonce, String text) {
        return TelemetryCommand.newBuilder().setStatus(Status.newBuilder().setCode(Code.OK))
            .setThreadStackTrace(ThreadStackTrace.newBuilder().setNonce(nonce).setThreadStackTrace(text)).build();
    }

    @Test
    void eachReplyCompletesTheWaitOfItsOwnNonce() throws Exception {
        PendingReplies.Pending a = replies.expect(60_000);
        PendingReplies.Pending b = replies.expect(60_000);
        assertNotEquals(a.nonce(), b.nonce());
        assertTrue(replies.complete(b.nonce(), stack(b.nonce(), "B")));
        assertFalse(a.reply().isDone());
        assertEquals("B", b.reply().get().getThreadStackTrace().getThreadStackTrace());
        assertFalse(replies.complete(b.nonce(), stack(b.nonce(), "again")), "a nonce is answered once");
        assertFalse(replies.complete("unknown", stack("unknown", "x")));
        assertTrue(replies.complete(a.nonce(), stack(a.nonce(), "A")));
        assertEquals("A", a.reply().get().getThreadStackTrace().getThreadStackTrace());
        assertEquals(0, replies.size());
    }

    @Test
    void aReplyThatDoesNotComeInTimeFailsWithATimeoutAndIsIgnoredLater() {
        PendingReplies.Pending p = replies.expect(20);
        ExecutionException e = assertThrows(ExecutionException.class, () -> p.reply().get());
        assertInstanceOf(RemotingTimeoutException.class, e.getCause());
        assertFalse(replies.complete(p.nonce(), stack(p.nonce(), "late")));
        assertEquals(0, replies.size());
    }

    @Test
    void aClosedConnectionFailsEveryWait() {
        PendingReplies.Pending p = replies.expect(60_000);
        replies.failAll(new IllegalStateException("closed"));
        ExecutionException e = assertThrows(ExecutionException.class, () -> p.reply().get());
        assertInstanceOf(IllegalStateException.class, e.getCause());
    }
}
