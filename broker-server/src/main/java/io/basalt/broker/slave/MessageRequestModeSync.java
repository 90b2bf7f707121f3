package io.basalt.broker.slave;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import io.basalt.broker.JsonConfigFile;
import io.basalt.broker.protocol.Json;
import io.basalt.remoting.json.JsonException;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;

/**
 * GET_ALL_MESSAGE_REQUEST_MODE: every round the master's {@code MessageRequestModeSerializeWrapper} replaces
 * {@code config/messageRequestMode.json} (RocketMQ's {@code syncMessageRequestMode}: clear, put all, persist).
 * Basalt has no POP yet: the file is kept for a promoted slave to hand on, and nothing else reads it.
 */
final class MessageRequestModeSync implements MetadataSync {
    private final JsonConfigFile file;

    MessageRequestModeSync(Path configDir) {
        this.file = new JsonConfigFile(configDir.resolve("messageRequestMode.json"));
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
        byte[] body = MetadataSync.successBody(response, what());
        Object tree;
        try {
            tree = Json.parse(body);
        } catch (JsonException e) {
            throw new IOException("the master's message request modes do not parse: " + e.getMessage(), e);
        }
        if (!(tree instanceof Map<?, ?> wrapper) || !(wrapper.get("messageRequestModeMap") instanceof Map<?, ?>)) {
            throw new IOException("the master's message request modes have no messageRequestModeMap");
        }
        file.storeExactly(body);
    }
}
