package io.basalt.broker.controller;

import io.basalt.remoting.netty.NettyClientConfig;
import io.basalt.remoting.netty.NettyRemotingClient;
import io.basalt.remoting.netty.RemotingException;
import io.basalt.remoting.netty.RemotingTimeoutException;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ControllerApi} over Basalt's remoting client, speaking to a real RocketMQ 5.2.0 Controller (standalone
 * or embedded in a NameServer) on each node's DLedger peer port.
 *
 * <p>{@code controllerAddr} is RocketMQ's broker key: {@code host:port} of every node, {@code ;}-separated.
 * After {@link #start()} a probe thread ({@code ControllerAddressProbe}) connects to each node every
 * {@code probeIntervalMs} and keeps the set of reachable ones; before the first probe every node counts as
 * reachable. Write and read requests go to the Controller's leader, found with 1005 GET_METADATA_INFO; when the
 * leader answers CONTROLLER_NOT_LEADER (2007) or cannot be connected to, the client finds the new leader
 * (waiting up to one request timeout for the group to elect one) and sends the request once more there. A request
 * the leader received but did not answer within the timeout is not repeated (it may have been applied): the
 * leader is forgotten and the call fails with {@link ControllerException#UNREACHABLE}.
 *
 * <p>Heartbeats (904, one-way) go to every reachable node and to the known leader even when the probe missed it,
 * so the node that leads after a Controller failover already has the broker's liveness (RocketMQ issue #10812).
 */
public final class RemotingControllerClient implements ControllerApi {
    private static final Logger log = LoggerFactory.getLogger(RemotingControllerClient.class);

    /** RocketMQ's timeout of every broker → Controller request. */
    public static final long DEFAULT_REQUEST_TIMEOUT_MS = 3000;
    /** RocketMQ's {@code sendHeartbeatTimeoutMillis}. */
    public static final long DEFAULT_HEARTBEAT_SEND_TIMEOUT_MS = 1000;
    /** RocketMQ's reachability scan period. */
    public static final long DEFAULT_PROBE_INTERVAL_MS = 3000;

    private static final long DISCOVERY_PAUSE_MS = 200;

    private final List<String> addresses;
    private final NettyRemotingClient remoting;
    private final long requestTimeoutMs;
    private final long heartbeatSendTimeoutMs;
    private final long probeIntervalMs;
    private final Set<String> unreachable = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService probe;
    private volatile String leader;
    private volatile boolean closed;

    /**
     * @param controllerAddr       {@code host:port;host:port…} of every Controller node
     * @param nettyConfig          the remoting client's settings
     * @param requestTimeoutMs     timeout of each request (RocketMQ: 3000)
     * @param heartbeatSendTimeoutMs timeout of writing one heartbeat (RocketMQ {@code sendHeartbeatTimeoutMillis}: 1000)
     * @param probeIntervalMs      reachability probe period (RocketMQ: 3000)
     */
    public RemotingControllerClient(String controllerAddr, NettyClientConfig nettyConfig, long requestTimeoutMs,
        long heartbeatSendTimeoutMs, long probeIntervalMs) {
        this(controllerAddr, nettyConfig, null, requestTimeoutMs, heartbeatSendTimeoutMs, probeIntervalMs);
    }

    /** As the other constructor, with TLS on every connection to the Controller when {@code tls} is not null. */
    public RemotingControllerClient(String controllerAddr, NettyClientConfig nettyConfig, SslContext tls,
        long requestTimeoutMs, long heartbeatSendTimeoutMs, long probeIntervalMs) {
        this.addresses = parseControllerAddr(controllerAddr);
        if (requestTimeoutMs <= 0 || heartbeatSendTimeoutMs <= 0 || probeIntervalMs <= 0) {
            throw new IllegalArgumentException("timeouts and the probe interval must be positive: request "
                + requestTimeoutMs + " ms, heartbeat " + heartbeatSendTimeoutMs + " ms, probe " + probeIntervalMs + " ms");
        }
        this.requestTimeoutMs = requestTimeoutMs;
        this.heartbeatSendTimeoutMs = heartbeatSendTimeoutMs;
        this.probeIntervalMs = probeIntervalMs;
        this.remoting = new NettyRemotingClient(nettyConfig, tls);
        this.probe = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "ControllerAddressProbe");
            t.setDaemon(true);
            return t;
        });
    }

    /** A client with RocketMQ's timeouts and the remoting client's defaults. */
    public RemotingControllerClient(String controllerAddr) {
        this(controllerAddr, NettyClientConfig.defaults(), DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_HEARTBEAT_SEND_TIMEOUT_MS,
            DEFAULT_PROBE_INTERVAL_MS);
    }

    /**
     * The nodes of {@code controllerAddr}: split on {@code ;}, blanks dropped, duplicates removed, each
     * {@code host:port} with a port in 1–65535.
     *
     * @throws IllegalArgumentException empty, or an entry that is not {@code host:port}
     */
    public static List<String> parseControllerAddr(String controllerAddr) {
        if (controllerAddr == null || controllerAddr.isBlank()) {
            throw new IllegalArgumentException("controllerAddr is empty: controller mode needs the address of at least "
                + "one Controller node (host:port;host:port)");
        }
        Set<String> result = new LinkedHashSet<>();
        for (String part : controllerAddr.split(";")) {
            String address = part.trim();
            if (address.isEmpty()) {
                continue;
            }
            int colon = address.lastIndexOf(':');
            int port;
            try {
                port = colon <= 0 ? -1 : Integer.parseInt(address.substring(colon + 1));
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("controllerAddr entry '" + address + "' is not host:port (in '"
                    + controllerAddr + "')");
            }
            result.add(address);
        }
        if (result.isEmpty()) {
            throw new IllegalArgumentException("controllerAddr names no node: '" + controllerAddr + "'");
        }
        return List.copyOf(result);
    }

    /** Starts the reachability probe. */
    public void start() {
        probe.scheduleWithFixedDelay(this::probeOnce, 0, probeIntervalMs, TimeUnit.MILLISECONDS);
    }

    /** Every configured node. */
    public List<String> controllerAddresses() {
        return addresses;
    }

    /** The nodes the last probe could connect to (all of them before the first probe). */
    public List<String> reachableAddresses() {
        return addresses.stream().filter(a -> !unreachable.contains(a)).toList();
    }

    /** The leader this client sends requests to, if it knows one. */
    public Optional<String> leaderAddress() {
        return Optional.ofNullable(leader);
    }

    void probeOnce() {
        for (String address : addresses) {
            if (closed) {
                return;
            }
            boolean reached = connects(address);
            boolean changed = reached ? unreachable.remove(address) : unreachable.add(address);
            if (changed) {
                log.info("Controller node {} is {}", address, reached ? "reachable again" : "unreachable");
            }
            if (!reached && address.equals(leader)) {
                leader = null;
            }
        }
    }

    private boolean connects(String address) {
        int colon = address.lastIndexOf(':');
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(address.substring(0, colon),
                Integer.parseInt(address.substring(colon + 1))), (int) Math.min(requestTimeoutMs, 1000));
            return true;
        } catch (IOException | IllegalArgumentException e) {
            return false;
        }
    }

    /** Reachable nodes first, then the others (a probe may be stale). */
    private List<String> askOrder() {
        List<String> order = new ArrayList<>(reachableAddresses());
        for (String address : addresses) {
            if (!order.contains(address)) {
                order.add(address);
            }
        }
        return order;
    }

    /**
     * {@inheritDoc}
     *
     * <p>The leader is reached by a configured address whenever one leads to it: when the leader the Controller
     * names is not one of {@code controllerAddr}'s entries (a Controller behind port forwarding, NAT or a per-node
     * proxy advertises an address the broker may not be able to reach, or may reach by another path), the other
     * configured nodes are asked until one answers {@code isLeader=true}, and requests go to that entry. Only when
     * none does is the advertised address used, as RocketMQ's broker always does.
     */
    @Override
    public ControllerMetadata metadata() throws ControllerException {
        ControllerMetadata answer = null;
        ControllerMetadata named = null;
        RemotingException lastError = null;
        for (String address : askOrder()) {
            try {
                RemotingCommand response = remoting.invokeSync(address,
                    RemotingCommand.request(RequestCode.CONTROLLER_GET_METADATA_INFO), requestTimeoutMs);
                if (response.code() != ResponseCode.SUCCESS) {
                    continue;
                }
                answer = ControllerCodec.metadata(response.extFields());
                if (answer.isLeader()) {
                    leader = address;
                    return answer;
                }
                if (!answer.leaderAddress().isEmpty()) {
                    if (addresses.contains(answer.leaderAddress())) {
                        leader = answer.leaderAddress();
                        return answer;
                    }
                    if (named == null) {
                        named = answer;
                    }
                }
            } catch (RemotingException e) {
                lastError = e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ControllerException(ControllerException.UNREACHABLE, "interrupted asking the Controller", e);
            }
        }
        if (named != null) {
            leader = named.leaderAddress();
            return named;
        }
        if (answer != null) {
            return answer;
        }
        throw new ControllerException(ControllerException.UNREACHABLE, "no Controller node of " + addresses
            + " answered GET_METADATA_INFO", lastError);
    }

    /**
     * The leader, asking the nodes until one names a leader other than {@code notThis} (null: any), for at most
     * one request timeout; when the nodes still name {@code notThis} at the end, it is the leader to try again (a
     * one-node Controller, or a leader that was not ready yet: DLedger names itself before it serves requests).
     * The address returned is the one requests go to ({@link #metadata()}).
     */
    private String discoverLeader(String notThis) throws ControllerException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(requestTimeoutMs);
        ControllerException last = null;
        boolean namedAgain = false;
        while (true) {
            try {
                leader = null;
                metadata();
                String found = leader;
                if (found != null && !found.equals(notThis)) {
                    if (notThis != null) {
                        log.info("Controller leader is now {} (was {})", found, notThis);
                    }
                    return found;
                }
                namedAgain = found != null;
                leader = null;
            } catch (ControllerException e) {
                last = e;
                namedAgain = false;
            }
            if (System.nanoTime() - deadline >= 0 && namedAgain && !closed) {
                log.info("the Controller still names {} its leader; trying it again", notThis);
                return notThis;
            }
            if (System.nanoTime() - deadline >= 0 || closed) {
                throw new ControllerException(ControllerException.UNREACHABLE, "the Controller " + addresses
                    + " has no leader" + (notThis == null ? "" : " other than " + notThis), last);
            }
            try {
                Thread.sleep(DISCOVERY_PAUSE_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ControllerException(ControllerException.UNREACHABLE, "interrupted finding the Controller leader", e);
            }
        }
    }

    /** Sends a request to the leader, following a change of leader once; returns the SUCCESS (or other) response. */
    private RemotingCommand invokeOnLeader(Supplier<RemotingCommand> request, String what) throws ControllerException {
        if (closed) {
            throw new ControllerException(ControllerException.UNREACHABLE, "the Controller client is closed");
        }
        String failed = null;
        for (int attempt = 0; ; attempt++) {
            String target = leader;
            if (target == null || target.equals(failed)) {
                target = discoverLeader(failed);
            }
            RemotingCommand response;
            try {
                response = remoting.invokeSync(target, request.get(), requestTimeoutMs);
            } catch (RemotingTimeoutException e) {
                forgetLeader(target);
                throw new ControllerException(ControllerException.UNREACHABLE, what + ": the Controller leader "
                    + target + " did not answer within " + requestTimeoutMs + " ms", e);
            } catch (RemotingException e) {
                forgetLeader(target);
                if (attempt == 0) {
                    log.info("{}: cannot reach the Controller leader {} ({}); finding the new leader", what, target,
                        e.getMessage());
                    failed = target;
                    continue;
                }
                throw new ControllerException(ControllerException.UNREACHABLE, what + ": cannot reach the Controller "
                    + "leader " + target, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ControllerException(ControllerException.UNREACHABLE, what + ": interrupted", e);
            }
            if (response.code() == ControllerResponseCode.NOT_LEADER && attempt == 0) {
                log.info("{}: {} is no longer the Controller leader; finding the new leader", what, target);
                forgetLeader(target);
                failed = target;
                continue;
            }
            return response;
        }
    }

    private void forgetLeader(String address) {
        if (address.equals(leader)) {
            leader = null;
        }
    }

    private static ControllerException refused(String what, RemotingCommand response) {
        return new ControllerException(response.code(), what + " refused by the Controller with code " + response.code()
            + ": " + response.remark());
    }

    @Override
    public long nextBrokerId(String clusterName, String brokerName) throws ControllerException {
        String what = "GET_NEXT_BROKER_ID " + clusterName + "/" + brokerName;
        RemotingCommand response = invokeOnLeader(() -> RemotingCommand.request(RequestCode.CONTROLLER_GET_NEXT_BROKER_ID,
            ControllerCodec.nextBrokerIdRequest(clusterName, brokerName)), what);
        if (response.code() != ResponseCode.SUCCESS) {
            throw refused(what, response);
        }
        Long next = response.extFields() == null ? null : ControllerCodec.int64(response.extFields(), "nextBrokerId");
        if (next == null) {
            throw new ControllerException(ControllerResponseCode.INVALID_REQUEST, what + ": the answer has no nextBrokerId");
        }
        return next;
    }

    @Override
    public void applyBrokerId(String clusterName, String brokerName, long brokerId, String registerCheckCode)
        throws ControllerException {
        String what = "APPLY_BROKER_ID " + brokerId + " for " + clusterName + "/" + brokerName;
        RemotingCommand response = invokeOnLeader(() -> RemotingCommand.request(RequestCode.CONTROLLER_APPLY_BROKER_ID,
            ControllerCodec.applyBrokerIdRequest(clusterName, brokerName, brokerId, registerCheckCode)), what);
        if (response.code() != ResponseCode.SUCCESS) {
            throw refused(what, response);
        }
    }

    @Override
    public ReplicaInfo register(String clusterName, String brokerName, long brokerId, String brokerAddress)
        throws ControllerException {
        String what = "REGISTER_BROKER " + brokerId + " (" + brokerAddress + ") of " + clusterName + "/" + brokerName;
        RemotingCommand response = invokeOnLeader(() -> RemotingCommand.request(RequestCode.CONTROLLER_REGISTER_BROKER,
            ControllerCodec.registerRequest(clusterName, brokerName, brokerId, brokerAddress,
                System.currentTimeMillis())), what);
        if (response.code() != ResponseCode.SUCCESS) {
            throw refused(what, response);
        }
        return ControllerCodec.replicaInfo(response.extFields(), response.body());
    }

    @Override
    public void heartbeat(BrokerHeartbeat heartbeat) {
        if (closed) {
            return;
        }
        Set<String> targets = new LinkedHashSet<>(reachableAddresses());
        String known = leader;
        if (known != null) {
            targets.add(known);
        }
        ControllerCodec.Fields header = ControllerCodec.heartbeatRequest(heartbeat);
        for (String address : targets) {
            remoting.invokeOneway(address, RemotingCommand.request(RequestCode.BROKER_HEARTBEAT, header),
                heartbeatSendTimeoutMs).whenComplete((ok, error) -> {
                    if (error != null) {
                        log.debug("heartbeat to Controller node {} not sent: {}", address, error.getMessage());
                    }
                });
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>RocketMQ 5.2.0 sends the member group (every registered id's address) only with SUCCESS; with
     * CONTROLLER_MASTER_STILL_EXIST the result's {@code brokerAddrs} is empty.
     */
    @Override
    public ElectionResult electMaster(String clusterName, String brokerName, long brokerId) throws ControllerException {
        String what = "ELECT_MASTER " + clusterName + "/" + brokerName + " by " + brokerId;
        RemotingCommand response = invokeOnLeader(() -> RemotingCommand.request(RequestCode.CONTROLLER_ELECT_MASTER,
            ControllerCodec.electMasterRequest(clusterName, brokerName, brokerId, System.currentTimeMillis())), what);
        if (response.code() == ResponseCode.SUCCESS || response.code() == ControllerResponseCode.MASTER_STILL_EXIST) {
            return ControllerCodec.electionResult(response.code() == ResponseCode.SUCCESS, response.extFields(),
                response.body());
        }
        throw refused(what, response);
    }

    @Override
    public ReplicaInfo replicaInfo(String brokerName) throws ControllerException {
        String what = "GET_REPLICA_INFO " + brokerName;
        RemotingCommand response = invokeOnLeader(() -> RemotingCommand.request(RequestCode.CONTROLLER_GET_REPLICA_INFO,
            ControllerCodec.replicaInfoRequest(brokerName)), what);
        if (response.code() != ResponseCode.SUCCESS) {
            throw refused(what, response);
        }
        return ControllerCodec.replicaInfo(response.extFields(), response.body());
    }

    @Override
    public SyncStateSet alterSyncStateSet(String brokerName, long masterBrokerId, int masterEpoch, SyncStateSet proposal)
        throws ControllerException {
        String what = "ALTER_SYNC_STATE_SET " + brokerName + " to " + proposal.brokerIds() + " (epoch " + proposal.epoch()
            + ") by master " + masterBrokerId + " of epoch " + masterEpoch;
        byte[] body = ControllerCodec.syncStateSetBody(proposal);
        RemotingCommand response = invokeOnLeader(() -> {
            RemotingCommand request = RemotingCommand.request(RequestCode.CONTROLLER_ALTER_SYNC_STATE_SET,
                ControllerCodec.alterSyncStateSetRequest(brokerName, masterBrokerId, masterEpoch,
                    System.currentTimeMillis()));
            request.setBody(body);
            return request;
        }, what);
        if (response.code() != ResponseCode.SUCCESS) {
            throw refused(what, response);
        }
        ReplicaInfo adopted = ControllerCodec.replicaInfo(response.extFields(), response.body());
        Integer newEpoch = response.extFields() == null ? null
            : ControllerCodec.int32(response.extFields(), "newSyncStateSetEpoch");
        SyncStateSet set = adopted.syncStateSet();
        return newEpoch == null ? set : new SyncStateSet(set.brokerIds(), newEpoch);
    }

    /**
     * The replica info a 1008 NOTIFY_BROKER_ROLE_CHANGED push carries (header {@code masterAddress},
     * {@code masterBrokerId}, {@code masterEpoch}, {@code syncStateSetEpoch}; body SyncStateSet), for the
     * broker's processor of that code.
     */
    public static ReplicaInfo decodeRoleChange(RemotingCommand request) throws ControllerException {
        return ControllerCodec.replicaInfo(request.extFields(), request.body());
    }

    @Override
    public void close() {
        closed = true;
        probe.shutdownNow();
        try {
            probe.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        remoting.close();
    }
}
