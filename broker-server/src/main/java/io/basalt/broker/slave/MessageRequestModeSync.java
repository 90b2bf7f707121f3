package io.basalt.broker.slave;

import java.io.IOException;

import io.basalt.broker.assignment.MessageRequestModes;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;

/**
 * GET_ALL_MESSAGE_REQUEST_MODE: every round the master's {@code MessageRequestModeSerializeWrapper} replaces the
 * slave's request modes, in memory (QUERY_ASSIGNMENT on the slave answers with them at once) and in
 * {@code config/messageRequestMode.json} (RocketMQ's {@code syncMessageRequestMode}: clear, put all, persist).
 */
final class MessageRequestModeSync implements MetadataSync {
    private final MessageRequestModes modes;

    MessageRequestModeSync(MessageRequestModes modes) {
        this.modes = modes;
    }

    @Override
    public String what() {
        return "message request modes";
    }

    @Override
    public int requestCode() {
        return RequestCode.GET_ALL_MESSAGE_REQUEST_MODE;
    }

    @Override
    public void apply(RemotingCommand response) throws IOException {
        modes.replaceAll(MetadataSync.successBody(response, what()));
    }
}
