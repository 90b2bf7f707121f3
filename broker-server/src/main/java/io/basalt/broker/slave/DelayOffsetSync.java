package io.basalt.broker.slave;

import java.io.IOException;
import java.nio.file.Path;

import io.basalt.broker.JsonConfigFile;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GET_ALL_DELAY_OFFSET: the master's body replaces {@code config/delayOffset.json} as it is (RocketMQ's
 * {@code syncDelayOffset}, fastjson's unquoted delay levels included). A slave's schedule service does not run; it
 * reads the file when this slave becomes master, and a slave answers the file's content to its own slaves. A master
 * with no level delivered yet answers an empty table, which replaces the file as on RocketMQ; a master that answers
 * SYSTEM_ERROR "No delay offset in this broker" (RocketMQ's answer when it has no table): nothing to copy, the file
 * stays as it is.
 */
final class DelayOffsetSync implements MetadataSync {
    private static final Logger log = LoggerFactory.getLogger(DelayOffsetSync.class);

    private final JsonConfigFile file;

    DelayOffsetSync(Path configDir) {
        this.file = new JsonConfigFile(configDir.resolve("delayOffset.json"));
    }

    @Override
    public String what() {
        return "delay offsets";
    }

    @Override
    public int requestCode() {
        return RequestCode.GET_ALL_DELAY_OFFSET;
    }

    @Override
    public void apply(RemotingCommand response) throws IOException {
        if (response.code() == ResponseCode.SYSTEM_ERROR) {
            log.debug("the master has no delay offsets: {}", response.remark());
            return;
        }
        file.storeExactly(MetadataSync.successBody(response, what()));
    }
}
