package io.basalt.broker.slave;

import java.io.IOException;

import io.basalt.broker.protocol.SubscriptionGroupWrapper;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.remoting.json.JsonException;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GET_ALL_SUBSCRIPTIONGROUP_CONFIG: when the master's version differs, the slave's groups become exactly the
 * master's and subscriptionGroup.json is written (RocketMQ's {@code syncSubscriptionGroupConfig}).
 */
final class SubscriptionGroupSync implements MetadataSync {
    private static final Logger log = LoggerFactory.getLogger(SubscriptionGroupSync.class);

    private final SubscriptionGroupManager groups;

    SubscriptionGroupSync(SubscriptionGroupManager groups) {
        this.groups = groups;
    }

    @Override
    public String what() {
        return "subscription groups";
    }

    @Override
    public int requestCode() {
        return RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG;
    }

    @Override
    public void apply(RemotingCommand response) throws IOException {
        SubscriptionGroupWrapper master;
        try {
            master = SubscriptionGroupWrapper.decode(MetadataSync.successBody(response, what()));
        } catch (JsonException e) {
            throw new IOException("the master's subscription groups do not parse: " + e.getMessage(), e);
        }
        if (groups.replaceFromMaster(master.subscriptionGroupTable(), master.dataVersion())) {
            log.info("took the master's {} subscription groups (version {})", master.subscriptionGroupTable().size(),
                master.dataVersion());
        }
    }
}
