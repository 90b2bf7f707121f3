package io.basalt.broker.namesrv;

import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.basalt.broker.processor.HAProtocolsProcessor;
import io.basalt.ha.ReplicaProtocol;
import io.basalt.ha.slave.MasterLocator;
import io.basalt.remoting.netty.NettyRemotingClient;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;

/**
 * A slave's master as its NameServers name it: the remoting address ({@code masterAddr}) and the HA
 * address ({@code haServerAddr}) of the last registration result that named them, as RocketMQ's
 * slave takes them; and the master's protocols, asked with GET_HA_PROTOCOLS (a RocketMQ master
 * answers REQUEST_CODE_NOT_SUPPORTED: the classic protocol).
 *
 * <p>Threads: any. Owns one remoting client, closed by {@link #close()}.
 */
public final class NameServerMasterLocator implements MasterLocator, AutoCloseable {
    private final NameServerPresence presence;
    private final boolean hasNameServers;
    private final NettyRemotingClient client;
    private final long timeoutMs;

    public NameServerMasterLocator(NameServerPresence presence, boolean hasNameServers, NettyRemotingClient client,
                                   long timeoutMs) {
        this.presence = presence;
        this.hasNameServers = hasNameServers;
        this.client = client;
        this.timeoutMs = timeoutMs;
    }

    @Override
    public boolean locates() {
        return hasNameServers;
    }

    @Override
    public Optional<String> masterAddr() {
        return presence.masterAddr();
    }

    @Override
    public Optional<InetSocketAddress> haServerAddr() {
        return presence.haServerAddr().flatMap(NameServerMasterLocator::socketAddress);
    }

    @Override
    public CompletableFuture<Set<ReplicaProtocol>> protocols(String masterAddr) {
        CompletableFuture<RemotingCommand> answer;
        try {
            answer = client.invokeAsync(masterAddr, RemotingCommand.request(HAProtocolsProcessor.GET_HA_PROTOCOLS),
                timeoutMs);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return answer.thenApply(NameServerMasterLocator::protocolsOf);
    }

    /** What a GET_HA_PROTOCOLS response says the master speaks. */
    static Set<ReplicaProtocol> protocolsOf(RemotingCommand response) {
        if (response.code() == ResponseCode.REQUEST_CODE_NOT_SUPPORTED) {
            return EnumSet.of(ReplicaProtocol.CLASSIC);
        }
        if (response.code() != ResponseCode.SUCCESS) {
            throw new CompletionException(new IllegalStateException("GET_HA_PROTOCOLS answered code " + response.code()
                + ": " + response.remark()));
        }
        return ReplicaProtocol.parse(response.extFields() == null ? null
            : response.extFields().get(HAProtocolsProcessor.PROTOCOLS));
    }

    /** host:port as an address, empty when it is not one. */
    static Optional<InetSocketAddress> socketAddress(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0 || colon == hostPort.length() - 1) {
            return Optional.empty();
        }
        try {
            int port = Integer.parseInt(hostPort.substring(colon + 1));
            String host = hostPort.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            return port <= 0 || port > 65535 ? Optional.empty() : Optional.of(new InetSocketAddress(host, port));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
