package io.basalt.broker.namesrv;

import io.basalt.broker.protocol.RegisterBrokerBody;
import io.basalt.broker.protocol.TopicConfigSerializeWrapper;
import io.basalt.remoting.netty.NettyRemotingClient;
import io.basalt.remoting.netty.RemotingException;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the broker registered with the Apache RocketMQ NameServers of {@code namesrvAddr}, as RocketMQ
 * 5.2.0's broker does: REGISTER_BROKER to each NameServer every {@code periodMs} (the topic table as a
 * JSON {@code RegisterBrokerBody}, its CRC32 in the header) and at once when {@link #topicsChanged()}
 * is called; UNREGISTER_BROKER to each on {@link #shutdown()}. A NameServer that is down or refuses is
 * logged and tried again next period; the others are not held up.
 *
 * <p>All registrations run on one thread ({@code BrokerNameServerRegister}); {@link #registerAll()} may
 * also be called directly (tests). The registrar owns the remoting client it is given and closes it on
 * shutdown.
 */
public final class NameServerRegistrar {
    private static final Logger log = LoggerFactory.getLogger(NameServerRegistrar.class);

    private final List<String> nameServers;
    private final BrokerRegistration broker;
    private final Supplier<TopicConfigSerializeWrapper> topics;
    private final NettyRemotingClient client;
    private final long timeoutMs;
    private final ScheduledExecutorService thread;
    private boolean started;
    private boolean shutdown;

    /**
     * @param nameServers "host:port" of every NameServer
     * @param topics      the current topic table, read at each registration
     * @param timeoutMs   how long one NameServer may take to answer (RocketMQ's registerBrokerTimeoutMills)
     */
    public NameServerRegistrar(List<String> nameServers, BrokerRegistration broker,
        Supplier<TopicConfigSerializeWrapper> topics, NettyRemotingClient client, long timeoutMs) {
        if (nameServers.isEmpty()) {
            throw new IllegalArgumentException("no NameServer to register with");
        }
        this.nameServers = List.copyOf(nameServers);
        this.broker = broker;
        this.topics = topics;
        this.client = client;
        this.timeoutMs = timeoutMs;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "BrokerNameServerRegister");
            t.setDaemon(true);
            return t;
        });
    }

    /** Registers now, then every {@code periodMs}. */
    public synchronized void start(long periodMs) {
        if (started || shutdown) {
            return;
        }
        started = true;
        thread.scheduleAtFixedRate(this::registerAll, 0, periodMs, TimeUnit.MILLISECONDS);
        log.info("registering broker {} at {} with NameServers {} every {} ms", broker.brokerName(), broker.brokerAddr(),
            nameServers, periodMs);
    }

    /** The topic table changed: register again at once, on the registration thread. */
    public void topicsChanged() {
        try {
            thread.execute(this::registerAll);
        } catch (RejectedExecutionException e) {
            log.debug("not re-registering: the registrar is shut down");
        }
    }

    /**
     * Sends REGISTER_BROKER with the current topic table to every NameServer.
     *
     * @return how many NameServers accepted it
     */
    public int registerAll() {
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

    /** RocketMQ's {@code UtilAll.crc32}: CRC32 with the sign bit cleared. */
    static int crc32(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return (int) (crc.getValue() & 0x7FFFFFFF);
    }
}
