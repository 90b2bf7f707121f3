package io.basalt.broker.slave;

import java.io.IOException;

import io.basalt.broker.protocol.TopicConfigSerializeWrapper;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.json.JsonException;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GET_ALL_TOPIC_CONFIG on the master's VIP port: when the master's table version differs from this slave's, the
 * slave takes the master's topics, deletes the ones the master no longer has, and writes topics.json (RocketMQ's
 * {@code syncTopicConfig}). Basalt has no static topics, so there is no mapping table to copy.
 */
final class TopicConfigSync implements MetadataSync {
    private static final Logger log = LoggerFactory.getLogger(TopicConfigSync.class);

    private final TopicConfigManager topics;

    TopicConfigSync(TopicConfigManager topics) {
        this.topics = topics;
    }

    @Override
    public String what() {
        return "topics";
    }

    @Override
    public int requestCode() {
        return RequestCode.GET_ALL_TOPIC_CONFIG;
    }

    @Override
    public boolean viaVipPort() {
        return true;
    }

    @Override
    public void apply(RemotingCommand response) throws IOException {
        TopicConfigSerializeWrapper master;
        try {
            master = TopicConfigSerializeWrapper.decode(MetadataSync.successBody(response, what()));
        } catch (JsonException e) {
            throw new IOException("the master's topic table does not parse: " + e.getMessage(), e);
        }
        if (topics.replaceFromMaster(master.topicConfigTable(), master.dataVersion())) {
            log.info("took the master's {} topics (version {})", master.topicConfigTable().size(), master.dataVersion());
        }
    }
}
