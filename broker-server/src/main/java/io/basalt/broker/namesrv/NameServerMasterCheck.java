package io.basalt.broker.namesrv;

import io.basalt.broker.protocol.Json;
import io.basalt.remoting.json.JsonException;
import io.basalt.remoting.netty.NettyRemotingClient;
import io.basalt.remoting.netty.RemotingException;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the NameServers whether an unexpected address holds brokerId 0 of a broker name. Before a
 * master registers, that is a promoted slave when this master was deposed while it was down: a
 * master that then registered would take the route back and two masters would accept writes. Before
 * a slave is promoted, that is another slave promoted already.
 * RocketMQ's NameServer knows no epochs; the address it routes producers to is what counts.
 *
 * <p>A NameServer that cannot be asked is skipped (logged): the check guards against a known newer
 * master, it does not make start-up depend on the NameServers.
 */
public final class NameServerMasterCheck {
    private static final Logger log = LoggerFactory.getLogger(NameServerMasterCheck.class);
    private static final long MASTER_ID = 0;

    private NameServerMasterCheck() {
    }

    /**
     * The first NameServer's answer naming a master for {@code brokerName} outside {@code expected}
     * (addresses host:port), as a sentence for the log, or empty when none does.
     */
    public static Optional<String> otherMaster(List<String> nameServers, String brokerName, Set<String> expected,
                                               NettyRemotingClient client, long timeoutMs) {
        for (String nameServer : nameServers) {
            try {
                RemotingCommand response = client.invokeSync(nameServer,
                    RemotingCommand.request(RequestCode.GET_BROKER_CLUSTER_INFO), timeoutMs);
                if (response.code() != ResponseCode.SUCCESS) {
                    log.warn("NameServer {} did not answer GET_BROKER_CLUSTER_INFO: code {}, {}", nameServer,
                        response.code(), response.remark());
                    continue;
                }
                Optional<String> master = masterOf(response.body(), brokerName);
                if (master.isPresent() && !expected.contains(master.get())) {
                    return Optional.of("NameServer " + nameServer + " routes broker " + brokerName + " to the master at "
                        + master.get() + ", not to " + String.join(" or ", expected));
                }
            } catch (RemotingException | JsonException e) {
                log.warn("cannot ask NameServer {} for the master of {}: {}", nameServer, brokerName, e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** brokerAddrTable[brokerName].brokerAddrs[0] of a ClusterInfo body (fastjson: the id keys are unquoted numbers). */
    static Optional<String> masterOf(byte[] clusterInfo, String brokerName) {
        if (clusterInfo == null || clusterInfo.length == 0) {
            return Optional.empty();
        }
        if (!(Json.parse(clusterInfo) instanceof Map<?, ?> root)
            || !(root.get("brokerAddrTable") instanceof Map<?, ?> table)
            || !(table.get(brokerName) instanceof Map<?, ?> brokerData)
            || !(brokerData.get("brokerAddrs") instanceof Map<?, ?> addrs)) {
            return Optional.empty();
        }
        for (Map.Entry<?, ?> e : addrs.entrySet()) {
            if (idOf(e.getKey()) == MASTER_ID && e.getValue() instanceof String addr) {
                return Optional.of(addr);
            }
        }
        return Optional.empty();
    }

    private static long idOf(Object key) {
        if (key instanceof Number n) {
            return n.longValue();
        }
        try {
            return Long.parseLong(String.valueOf(key));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
