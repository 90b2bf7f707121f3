package io.basalt.broker.slave;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;

import io.basalt.broker.testing.FixedTimerMessages;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import org.junit.jupiter.api.Test;

/** What a slave does with the master's GET_TIMER_CHECK_POINT answer. */
class TimerCheckpointSyncTest {
    private final FixedTimerMessages timers = new FixedTimerMessages();
    private final TimerCheckpointSync sync = new TimerCheckpointSync(timers);

    private static RemotingCommand answer(int code, byte[] body) {
        RemotingCommand response = RemotingCommand.response(code, code == ResponseCode.SUCCESS ? null : "The checkpoint is null");
        response.setBody(body);
        return response;
    }

    @Test
    void theMastersCheckpointGoesToTheWheelAtEveryRound() throws IOException {
        byte[] body = new byte[56];
        body[15] = 9;
        sync.apply(answer(ResponseCode.SUCCESS, body));
        assertEquals(1, timers.appliedCheckpoints.size());
        assertArrayEquals(body, timers.appliedCheckpoints.get(0));
        assertEquals(RequestCode.GET_TIMER_CHECK_POINT, sync.requestCode());
        assertTrue(sync.everyRound());
    }

    @Test
    void aMasterWithoutAWheelIsNoFailureAndAShortBodyIsOne() throws IOException {
        sync.apply(answer(ResponseCode.SYSTEM_ERROR, null));
        assertEquals(0, timers.appliedCheckpoints.size());
        IOException e = assertThrows(IOException.class, () -> sync.apply(answer(ResponseCode.SUCCESS, new byte[16])));
        assertTrue(e.getMessage().contains("16 bytes"), e.getMessage());
        assertEquals(0, timers.appliedCheckpoints.size());
    }
}
