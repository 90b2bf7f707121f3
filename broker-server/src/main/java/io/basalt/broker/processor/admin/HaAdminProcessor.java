package io.basalt.broker.processor.admin;

import io.basalt.broker.metrics.HaMetrics;
import io.basalt.broker.protocol.EpochEntryCache;
import io.basalt.broker.protocol.HaRuntimeInfo;
import io.basalt.ha.BrokerRole;
import io.basalt.ha.EpochFile;
import io.basalt.ha.Replication;
import io.basalt.ha.SlaveStatus;
import io.basalt.ha.slave.ReplicaClient;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.MessageStore;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * Replication's two admin requests, with RocketMQ 5.2.0's bodies: GET_BROKER_EPOCH_CACHE (1007, {@code mqadmin
 * getBrokerEpoch}; body {@code EpochEntryCache}: cluster, broker name and id, the epoch file's entries, the
 * CommitLog's max offset) and GET_BROKER_HA_STATUS (907, {@code mqadmin haStatus}; body {@code HARuntimeInfo}).
 * RocketMQ answers 1007 only in controller mode; Basalt keeps an epoch history in both modes and answers in both.
 *
 * <p>Where Basalt's replication has no counterpart of a RocketMQ field the nearest honest value is given:
 * {@code transferredByteInSecond} is the bytes per second a slave acknowledged (master) or the local CommitLog
 * grew (slave) over the last second; {@code transferFromWhere} is the slave's acknowledged offset (where the
 * stream resumes); a slave's {@code lastReadTimestamp} and {@code lastWriteTimestamp} are the last second at which
 * its HA client was streaming, or now while it streams (it reads the master's data and heartbeats, and reports its offset, while it
 * streams); {@code masterFlushOffset} is 0, as on a RocketMQ slave without {@code syncMasterFlushOffsetWhenStartup}.
 * Safe for concurrent calls.
 */
public final class HaAdminProcessor implements RequestProcessor {
    private final String clusterName;
    private final String brokerName;
    private final LongSupplier brokerId;
    private final Replication replication;
    private final MessageStore store;
    private final HaMetrics ha;

    /**
     * @param brokerId the id this broker reports: RocketMQ's current {@code brokerId} (0 while master)
     */
    public HaAdminProcessor(String clusterName, String brokerName, LongSupplier brokerId, Replication replication,
                            MessageStore store, HaMetrics ha) {
        this.clusterName = clusterName;
        this.brokerName = brokerName;
        this.brokerId = brokerId;
        this.replication = replication;
        this.store = store;
        this.ha = ha;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        RemotingCommand response = switch (request.code()) {
            case RequestCode.GET_BROKER_EPOCH_CACHE -> success(epochCache().encode());
            case RequestCode.GET_BROKER_HA_STATUS -> success(runtimeInfo().encode());
            default -> RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                "request code " + request.code() + " not supported");
        };
        return CompletableFuture.completedFuture(response);
    }

    EpochEntryCache epochCache() {
        List<long[]> epochs = new ArrayList<>();
        for (EpochFile.Entry e : replication.epochEntries()) {
            epochs.add(new long[] {e.epoch(), e.startOffset()});
        }
        return new EpochEntryCache(clusterName, brokerName, brokerId.getAsLong(), epochs, store.getMaxPhyOffset());
    }

    HaRuntimeInfo runtimeInfo() {
        long max = store.getMaxPhyOffset();
        if (replication.role() == BrokerRole.SLAVE) {
            ReplicaClient client = replication.client();
            String masterAddr = null;
            if (client != null && client.masterAddress() != null) {
                InetSocketAddress a = client.masterAddress();
                masterAddr = a.getHostString() + ":" + a.getPort();
            }
            // streaming now: it reads and reports at least every haSendHeartbeatInterval
            long streamed = client != null && "TRANSFER".equals(client.stateName()) ? System.currentTimeMillis()
                : ha.lastStreamingMillis();
            return new HaRuntimeInfo(false, 0, 0, List.of(), new HaRuntimeInfo.Client(masterAddr,
                ha.clientTransferredBytesPerSecond(), max, streamed, streamed, 0));
        }
        List<HaRuntimeInfo.Connection> connections = new ArrayList<>();
        int inSync = 0;
        for (HaMetrics.SlaveView v : ha.slaves()) {
            SlaveStatus s = v.status();
            if (v.inSync()) {
                inSync++;
            }
            connections.add(new HaRuntimeInfo.Connection(hostPort(s.address()), s.ackOffset(), Math.max(0, max - s.ackOffset()),
                v.inSync(), v.transferredBytesPerSecond(), s.ackOffset()));
        }
        return new HaRuntimeInfo(true, max, inSync, connections, HaRuntimeInfo.Client.NONE);
    }

    /** A socket address's text without the host name part ({@code /127.0.0.1:1234} → {@code 127.0.0.1:1234}), as RocketMQ. */
    static String hostPort(String socketAddress) {
        int slash = socketAddress.lastIndexOf('/');
        return slash < 0 ? socketAddress : socketAddress.substring(slash + 1);
    }

    private static RemotingCommand success(byte[] body) {
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(body);
        return response;
    }
}
