package io.basalt.broker.namesrv;

import io.basalt.broker.protocol.RegisterBrokerBody;
import io.basalt.broker.protocol.TopicConfigSerializeWrapper;
import io.basalt.common.concurrent.DaemonThreads;
import io.basalt.remoting.netty.NettyRemotingClient;
import io.basalt.remoting.netty.RemotingException;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the broker registered with the Apache RocketMQ NameServers of {@code namesrvAddr}, as RocketMQ
 * 5.2.0's broker does: REGISTER_BROKER to each NameServer every {@code periodMs} (the topic table as a
 * JSON {@code RegisterBrokerBody}, its CRC32 in the header) and within a second of any change of the
 * topic table (an admin update, a topic auto-created by a send, a consumer group's retry topic), so
 * clients that only know the NameServers find new topics at once; UNREGISTER_BROKER to each on
 * {@link #shutdown()}. A NameServer that is down or refuses is logged and tried again next time; the
 * others are not held up.
 *
 * <p>All registrations run on one thread ({@code BrokerNameServerRegister}); {@link #registerAll()} may
 * also be called directly (tests). The registrar owns the remoting client it is given and closes it on
 * shutdown.
 */
public final class NameServerRegistrar {
    private static final Logger log = LoggerFactory.getLogger(NameServerRegistrar.class);

    private final List<String> nameServers;
    /** This broker as it registers; changed by {@link #registerAs} when the Controller changes its role. */
    private volatile BrokerRegistration broker;
    private final Supplier<TopicConfigSerializeWrapper> topics;
    private final LongSupplier topicsVersion;
    private final NettyRemotingClient client;
    private final long timeoutMs;
    private final ScheduledExecutorService thread;
    private boolean started;
    private boolean shutdown;
    /** The master's remoting address the NameServers answered a slave's registration with ("" while none). */
    private volatile String masterAddr = "";
    /** The master's HA address the NameServers answered a slave's registration with ("" while none). */
    private volatile String haServerAddr = "";
    /** The topic table version last sent; written by the registration thread only. */
    private long registeredVersion = Long.MIN_VALUE;
    /** When {@link #registerAs} changed the role, until its registration is done (System.nanoTime); 0 when none. */
    private volatile long roleChangedAtNs;

    /**
     * @param nameServers "host:port" of every NameServer
     * @param topics        the current topic table, read at each registration
     * @param topicsVersion a number that changes whenever the topic table does (its data version counter)
     * @param timeoutMs   how long one NameServer may take to answer (RocketMQ's registerBrokerTimeoutMills)
     */
    public NameServerRegistrar(List<String> nameServers, BrokerRegistration broker,
        Supplier<TopicConfigSerializeWrapper> topics, LongSupplier topicsVersion, NettyRemotingClient client,
        long timeoutMs) {
        if (nameServers.isEmpty()) {
            throw new IllegalArgumentException("no NameServer to register with");
        }
        this.nameServers = List.copyOf(nameServers);
        this.broker = broker;
        this.topics = topics;
        this.topicsVersion = topicsVersion;
        this.client = client;
        this.timeoutMs = timeoutMs;
        this.thread = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("BrokerNameServerRegister"));
    }

    /** Registers now, then every {@code periodMs}, and within a second of a topic table change. */
    public synchronized void start(long periodMs) {
        if (started || shutdown) {
            return;
        }
        started = true;
        thread.scheduleAtFixedRate(() -> keepScheduled(this::registerAll), 0, periodMs, TimeUnit.MILLISECONDS);
        thread.scheduleWithFixedDelay(() -> keepScheduled(this::registerIfTopicsChanged), 1, 1, TimeUnit.SECONDS);
        log.info("registering broker {} at {} with NameServers {} every {} ms", broker.brokerName(), broker.brokerAddr(),
            nameServers, periodMs);
    }

    /** A scheduled task that throws is never run again: say so loudly and keep registering. */
    private static void keepScheduled(IntSupplier registration) {
        try {
            registration.getAsInt();
        } catch (RuntimeException e) {
            log.error("registration with the NameServers failed; trying again next time", e);
        }
    }

    /** Registers if the topic table changed since the last registration; returns how many NameServers accepted. */
    int registerIfTopicsChanged() {
        return topicsVersion.getAsLong() == registeredVersion ? 0 : registerAll();
    }

    /**
     * Sends REGISTER_BROKER with the current topic table to every NameServer.
     *
     * @return how many NameServers accepted it
     */
    public int registerAll() {
        long version = topicsVersion.getAsLong();
        TopicConfigSerializeWrapper table = topics.get();
        byte[] body = new RegisterBrokerBody(table, List.of()).encode(false);
        // A NameServer takes a one-topic body from a broker it does not know yet for a single-topic update
        // and drops it ("has not registered"). A RocketMQ broker always has several system topics; a Basalt
        // broker may have only TBW102. So a one-topic table follows a registration without topics, which
        // records the broker's address first.
        byte[] addressOnly = table.topicConfigTable().size() == 1
            ? new RegisterBrokerBody(new TopicConfigSerializeWrapper(Map.of(), table.dataVersion()), List.of()).encode(false)
            : null;
        int accepted = 0;
        for (String nameServer : nameServers) {
            if (addressOnly != null && !send(nameServer, registerRequest(addressOnly), "REGISTER_BROKER")) {
                continue;
            }
            if (send(nameServer, registerRequest(body), "REGISTER_BROKER")) {
                accepted++;
            }
        }
        registeredVersion = version;
        long changedAt = roleChangedAtNs;
        if (changedAt != 0 && accepted > 0) {
            roleChangedAtNs = 0;
            log.info("registered as brokerId {} with {} of {} NameServers, {} ms after the role change",
                broker.brokerId(), accepted, nameServers.size(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - changedAt));
        }
        return accepted;
    }

    private RemotingCommand registerRequest(byte[] body) {
        RemotingCommand request = RemotingCommand.request(RequestCode.REGISTER_BROKER, broker.registerHeader(crc32(body)));
        request.setBody(body);
        return request;
    }

    /**
     * Stops registering, sends UNREGISTER_BROKER to every NameServer and closes the client. Idempotent.
     */
    public void shutdown() {
        synchronized (this) {
            if (shutdown) {
                return;
            }
            shutdown = true;
        }
        thread.shutdownNow();
        try {
            if (!thread.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS)) {
                log.warn("a registration is still running after {} ms", timeoutMs);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (String nameServer : nameServers) {
            send(nameServer, RemotingCommand.request(RequestCode.UNREGISTER_BROKER, broker.unregisterHeader()),
                "UNREGISTER_BROKER");
        }
        client.close();
    }

    private boolean send(String nameServer, RemotingCommand request, String what) {
        try {
            RemotingCommand response = client.invokeSync(nameServer, request, timeoutMs);
            if (response.code() == ResponseCode.SUCCESS) {
                log.debug("{} to NameServer {} done", what, nameServer);
                String master = response.extFields() == null ? null : response.extFields().get("masterAddr");
                if (master != null && !master.isEmpty()) {
                    masterAddr = master;
                }
                String ha = response.extFields() == null ? null : response.extFields().get("haServerAddr");
                if (ha != null && !ha.isEmpty()) {
                    haServerAddr = ha;
                }
                return true;
            }
            log.warn("{} to NameServer {} refused: code {}, {}", what, nameServer, response.code(), response.remark());
        } catch (RemotingException e) {
            log.warn("{} to NameServer {} failed: {}", what, nameServer, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    /**
     * The master's remoting address from the last registration result that named one (RocketMQ's
     * {@code RegisterBrokerResult.masterAddr}, filled for a slave whose master is registered and alive), or "".
     */
    public String masterAddr() {
        return masterAddr;
    }

    /**
     * Registers from now on as {@code as} (the same broker under the brokerId of a new role) and at once, on the
     * registration thread, over the same connections. Nothing is unregistered: the NameServers replace the entry of
     * this address under its old brokerId themselves, whereas an UNREGISTER_BROKER (which a 5.x NameServer applies
     * later, in a batch, to every entry of the address) or a closed connection (which it takes for the broker's
     * death) could remove the new entry after it was made.
     */
    public void registerAs(BrokerRegistration as) {
        if (!as.brokerAddr().equals(broker.brokerAddr()) || !as.brokerName().equals(broker.brokerName())) {
            throw new IllegalArgumentException("another broker: " + as.brokerName() + " at " + as.brokerAddr());
        }
        broker = as;
        roleChangedAtNs = System.nanoTime();
        // what the NameServers said of the previous role's master
        masterAddr = "";
        haServerAddr = "";
        registerSoon();
    }

    /** The brokerId this registrar registers with. */
    public long brokerId() {
        return broker.brokerId();
    }

    /** Registers once more soon, on the registration thread (a slave asking for its master's addresses). */
    public void registerSoon() {
        try {
            thread.execute(() -> keepScheduled(this::registerAll));
        } catch (RejectedExecutionException e) {
            // shut down
        }
    }

    /**
     * Registers the topic table now if it changed since the last registration, and waits until every NameServer
     * answered or timed out (RocketMQ registers a topic the admin created before it answers the admin, so that a
     * client routed right after finds it). Any thread but the registration thread.
     */
    public void registerChangesAndWait() {
        Future<?> done;
        try {
            done = thread.submit(() -> keepScheduled(this::registerIfTopicsChanged));
        } catch (RejectedExecutionException e) {
            return; // shut down
        }
        // a registration sends at most two requests to each NameServer, each bounded by timeoutMs
        long boundMs = 2 * timeoutMs * (nameServers.size() + 1);
        try {
            done.get(boundMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            log.warn("the registration of a topic change is still running after {} ms; answering without it", boundMs);
        } catch (ExecutionException | CancellationException e) {
            // keepScheduled logged it; the periodic registration tries again
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The master's HA address from the last registration result that named one (RocketMQ's {@code haServerAddr}), or "". */
    public String haServerAddr() {
        return haServerAddr;
    }

    /** RocketMQ's {@code UtilAll.crc32}: CRC32 with the sign bit cleared. */
    static int crc32(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return (int) (crc.getValue() & 0x7FFFFFFF);
    }
}
