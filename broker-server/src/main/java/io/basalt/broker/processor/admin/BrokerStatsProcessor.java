package io.basalt.broker.processor.admin;

import io.basalt.broker.processor.RequestFields;
import io.basalt.broker.protocol.BrokerStatsData;
import io.basalt.broker.stats.BrokerStats;
import io.basalt.broker.stats.StatsItem;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import java.util.concurrent.CompletableFuture;

/**
 * VIEW_BROKER_STATS_DATA ({@code mqadmin statsAll}, the dashboard, rocketmq-exporter): one stats item's minute,
 * hour and day windows by RocketMQ's stats name and key ({@link BrokerStats}). A kept name whose key counted
 * nothing is RocketMQ's SYSTEM_ERROR "The stats NAME KEY not exist"; a RocketMQ name Basalt does not keep is a
 * SYSTEM_ERROR that says so and lists the kept names. Safe for concurrent calls.
 */
public final class BrokerStatsProcessor implements RequestProcessor {
    private final BrokerStats stats;

    public BrokerStatsProcessor(BrokerStats stats) {
        this.stats = stats;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        RequestFields fields = new RequestFields(request);
        RemotingCommand response;
        try {
            response = view(fields.requireString("statsName"), fields.requireString("statsKey"));
        } catch (RequestFields.BadRequestException e) {
            response = RequestFields.badRequest(e);
        }
        return CompletableFuture.completedFuture(response);
    }

    private RemotingCommand view(String name, String key) {
        BrokerStats.Lookup found = stats.find(name, key);
        if (found instanceof BrokerStats.Lookup.Found f) {
            StatsItem item = f.item();
            RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
            response.setBody(new BrokerStatsData(item(item.minute()), item(item.hour()), item(item.day())).encode());
            return response;
        }
        if (found instanceof BrokerStats.Lookup.NotKept) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "The stats " + name + " " + key
                + " not exist: Basalt does not keep the stats " + name + " (it keeps " + String.join(", ", BrokerStats.KEPT) + ")");
        }
        return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "The stats " + name + " " + key + " not exist");
    }

    private static BrokerStatsData.Item item(StatsItem.Window window) {
        return new BrokerStatsData.Item(window.sum(), window.tps(), window.avgpt());
    }
}
