package io.basalt.broker.slave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

import io.basalt.broker.assignment.MessageRequestModes;
import io.basalt.broker.protocol.MessageRequestModeBody;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A slave's copy of its master's request modes is the live table its QUERY_ASSIGNMENT reads, not only a file. */
class MessageRequestModeSyncTest {
    @TempDir
    Path dir;

    @Test
    void theMastersModesReplaceTheSlavesLiveTableAndFile() throws Exception {
        MessageRequestModes master = MessageRequestModes.inMemory();
        MessageRequestModeBody pop = new MessageRequestModeBody("T", "cg", "POP", 1);
        master.set(pop);
        MessageRequestModes slave = MessageRequestModes.open(dir);
        RemotingCommand answer = RemotingCommand.response(ResponseCode.SUCCESS, null);
        answer.setBody(master.encode());

        new MessageRequestModeSync(slave).apply(answer);
        assertEquals(Optional.of(pop), slave.get("T", "cg"));
        assertEquals(Optional.of(pop), MessageRequestModes.open(dir).get("T", "cg"));
    }

    @Test
    void aRefusalIsAnErrorAndChangesNothing() throws Exception {
        MessageRequestModes slave = MessageRequestModes.open(dir);
        assertThrows(IOException.class, () -> new MessageRequestModeSync(slave)
            .apply(RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "no")));
        assertEquals(Optional.empty(), slave.get("T", "cg"));
    }
}
