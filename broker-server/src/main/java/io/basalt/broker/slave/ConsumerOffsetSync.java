package io.basalt.broker.slave;

import java.io.IOException;

import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.protocol.ConsumerOffsetSerializeWrapper;
import io.basalt.remoting.json.JsonException;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;

/**
 * GET_ALL_CONSUMER_OFFSET: every round, whatever the version, the master's offsets replace the slave's for each
 * {@code topic@group} the master has (none is deleted), the version becomes the master's, and consumerOffset.json
 * is written (RocketMQ's {@code syncConsumerOffset}). An offset a consumer committed to this slave while the
 * master was unreachable is overwritten by the master's at the next round, as in RocketMQ.
 */
final class ConsumerOffsetSync implements MetadataSync {
    private final ConsumerOffsetManager offsets;

    ConsumerOffsetSync(ConsumerOffsetManager offsets) {
        this.offsets = offsets;
    }

    @Override
    public String what() {
        return "consumer offsets";
    }

    @Override
    public int requestCode() {
        return RequestCode.GET_ALL_CONSUMER_OFFSET;
    }

    @Override
    public void apply(RemotingCommand response) throws IOException {
        ConsumerOffsetSerializeWrapper master;
        try {
            master = ConsumerOffsetSerializeWrapper.decode(MetadataSync.successBody(response, what()), offsets.dataVersion());
        } catch (JsonException e) {
            throw new IOException("the master's consumer offsets do not parse: " + e.getMessage(), e);
        }
        offsets.putAll(master.offsetTable(), master.dataVersion());
        offsets.persist();
    }
}
