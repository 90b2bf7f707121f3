package io.basalt.broker.slave;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import io.basalt.broker.assignment.MessageRequestModes;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.broker.transaction.TransactionMetrics;
import io.basalt.common.service.ErrorPolicy;
import io.basalt.common.service.ServiceThread;
import io.basalt.remoting.netty.NettyRemotingClient;
import io.basalt.remoting.netty.RemotingException;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.store.TimerMessages;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A slave's copy of its master's metadata (RocketMQ's {@code SlaveSynchronize.syncAll}): topics (on the master's
 * VIP port), consumer offsets, delay offsets, subscription groups, message request modes and (Basalt only) the
 * pending half-message counts of {@code config/transactionMetrics}, each applied by its
 * {@link MetadataSync} job.
 *
 * <p>When: a round every {@value #TICK_MS} ms runs the jobs when more than {@value #SYNC_PERIOD_MS} ms passed
 * since the last complete sync — RocketMQ's controller-mode slave. Its classic slave syncs only every 60 s, the
 * first time ~60 s after start; but a Basalt slave can be promoted ({@code mqha promote}), and what it has at
 * that moment is what the new master serves, so the shorter period bounds what a promotion loses to ~10 s of
 * metadata changes. The first sync runs as soon as the master's address is known (rounds every
 * {@value #FIRST_TICK_MS} ms until then), so a fresh slave knows the topics before consumers read from it.
 * A round with a failed request (or a refusal, or a bad answer) is logged and the failed jobs run again at the
 * next round, without waiting for the period. The timer checkpoint ({@link TimerCheckpointSync}, when this
 * broker's timer wheel is enabled) is asked for at every round, as RocketMQ's slave asks every 3 s.
 *
 * <p>Where: the master's remoting address from the NameServer registration result or, without NameServers,
 * from the HA handshake; never this broker's own address. A round does nothing while it is unknown.
 *
 * <p>Threads: its own service thread ({@code SlaveSynchronizeService}) does all requests and applies them, so
 * nothing else on the slave waits for the master. A promotion calls {@link #shutdown()} before the new master
 * serves: the thread ends after the round in flight, which applies nothing once this broker is no longer a slave.
 */
public final class SlaveSynchronize extends ServiceThread {
    private static final Logger log = LoggerFactory.getLogger(SlaveSynchronize.class);
    static final long TICK_MS = 3_000;
    static final long FIRST_TICK_MS = 1_000;
    static final long SYNC_PERIOD_MS = 10_000;
    /** How long the master may take to answer one request (RocketMQ's brokerOuterAPI uses 3 s). */
    static final long REQUEST_TIMEOUT_MS = 3_000;
    /** What the last sync before a promotion may take in all (a live master answers each table in milliseconds). */
    static final long LAST_SYNC_BUDGET_MS = 500;

    /** The full sync, every {@value #SYNC_PERIOD_MS} ms. */
    private final List<MetadataSync> jobs;
    /** Jobs run at every round. */
    private final List<MetadataSync> everyRound;
    private final Supplier<Optional<String>> masterAddress;
    private final BooleanSupplier isSlave;
    private final Supplier<NettyRemotingClient> clients;
    private final LongSupplier clock;
    /** Made by the service thread at the first request; closed when the service is told to stop and when it ends. */
    private volatile NettyRemotingClient client;
    /** Service thread only: when the last complete sync ended, Long.MIN_VALUE before the first. */
    private long lastSyncMs = Long.MIN_VALUE;
    private volatile long completedSyncs;

    SlaveSynchronize(List<MetadataSync> jobs, Supplier<Optional<String>> masterAddress, BooleanSupplier isSlave,
                     Supplier<NettyRemotingClient> clients, LongSupplier clock) {
        super("SlaveSynchronizeService", ErrorPolicy.resilient());
        this.jobs = jobs.stream().filter(job -> !job.everyRound()).toList();
        this.everyRound = jobs.stream().filter(MetadataSync::everyRound).toList();
        this.masterAddress = masterAddress;
        this.isSlave = isSlave;
        this.clients = clients;
        this.clock = clock;
    }

    /**
     * The sync of a slave's tables, written to the files under {@code configDir}.
     *
     * @param timers        this broker's timer wheel: its checkpoint follows the master's while it is enabled
     * @param transactions  this broker's pending half-message counts, replaced by the master's
     * @param requestModes  this broker's message request modes, replaced by the master's
     * @param masterAddress the master's remoting address (host:port), empty while unknown
     * @param isSlave       false once this broker was promoted: answers arriving then are dropped
     * @param clients       makes the service's remoting client (on its thread, at the first request); the service
     *                      closes it when it stops
     */
    public static SlaveSynchronize of(TopicConfigManager topics, ConsumerOffsetManager offsets,
                                      SubscriptionGroupManager groups, Path configDir, TimerMessages timers,
                                      TransactionMetrics transactions, MessageRequestModes requestModes,
                                      Supplier<Optional<String>> masterAddress, BooleanSupplier isSlave,
                                      Supplier<NettyRemotingClient> clients) {
        // RocketMQ's syncAll order
        List<MetadataSync> jobs = new ArrayList<>(List.of(new TopicConfigSync(topics), new ConsumerOffsetSync(offsets),
            new DelayOffsetSync(configDir), new SubscriptionGroupSync(groups), new MessageRequestModeSync(requestModes),
            new TransactionMetricsSync(transactions)));
        if (timers.enabled()) {
            jobs.add(new TimerCheckpointSync(timers));
        }
        return new SlaveSynchronize(jobs, masterAddress, isSlave, clients, System::currentTimeMillis);
    }

    @Override
    protected int doWork() {
        if (!isSlave.getAsBoolean()) {
            return 0;
        }
        Optional<String> master = masterAddress.get();
        if (master.isEmpty()) {
            return 0;
        }
        int work = 0;
        if (!everyRound.isEmpty()) {
            run(everyRound, master.get());
            work++;
        }
        if (lastSyncMs != Long.MIN_VALUE && clock.getAsLong() - lastSyncMs <= SYNC_PERIOD_MS) {
            return work;
        }
        if (run(jobs, master.get())) {
            lastSyncMs = clock.getAsLong();
            completedSyncs++;
        }
        return work + 1;
    }

    /** Runs {@code round}'s jobs against {@code master}; true when all of them applied the master's answer. */
    private boolean run(List<MetadataSync> round, String master) {
        if (client == null) {
            client = clients.get();
        }
        boolean complete = true;
        for (MetadataSync job : round) {
            if (isStopped() || !isSlave.getAsBoolean()) {
                return false; // shutting down, or promoted: the rest of the round is not wanted
            }
            String address = job.viaVipPort() ? vipAddress(master) : master;
            try {
                RemotingCommand response = client.invokeSync(address, RemotingCommand.request(job.requestCode()),
                    REQUEST_TIMEOUT_MS);
                if (!isSlave.getAsBoolean()) {
                    return false; // promoted meanwhile: the new master's tables are its own now
                }
                job.apply(response);
            } catch (RemotingException | IOException e) {
                complete = false;
                log.warn("syncing {} from the master at {} failed, trying again in {} ms: {}", job.what(), address,
                    TICK_MS, e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return complete;
    }

    /**
     * One last full sync from {@code master}, on the caller's thread, for a slave about to become master (controller
     * mode: the controller elected it while the old master may still answer). Call it after {@link #shutdown()}.
     * Stops at the first request that fails (a dead master refuses at once); what was applied until then stays.
     * All requests together get {@link #LAST_SYNC_BUDGET_MS}: a hung or cut-off master (its port still accepts
     * connections) must not hold the promotion back by a request timeout per table.
     *
     * @return true when every table was copied
     */
    public boolean syncOnce(String master) {
        List<MetadataSync> all = new ArrayList<>(jobs);
        all.addAll(everyRound);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LAST_SYNC_BUDGET_MS);
        try (NettyRemotingClient c = clients.get()) {
            for (MetadataSync job : all) {
                String address = job.viaVipPort() ? vipAddress(master) : master;
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                try {
                    if (left <= 0) {
                        log.info("last sync from the previous master at {} stopped at {}: its {} ms budget is spent",
                            master, job.what(), LAST_SYNC_BUDGET_MS);
                        return false;
                    }
                    job.apply(c.invokeSync(address, RemotingCommand.request(job.requestCode()), left));
                } catch (RemotingException | IOException e) {
                    log.info("last sync of {} from the previous master at {} not done: {}", job.what(), address,
                        e.toString());
                    return false;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        log.info("last sync from the previous master at {} done before taking over", master);
        return true;
    }

    /** RocketMQ's {@code MixAll.brokerVIPChannel}: the same host, listen port − 2. */
    static String vipAddress(String brokerAddr) {
        int colon = brokerAddr.lastIndexOf(':');
        if (colon < 0) {
            return brokerAddr;
        }
        int port = Integer.parseInt(brokerAddr.substring(colon + 1));
        return brokerAddr.substring(0, colon + 1) + (port - 2);
    }

    /** How many complete syncs ran (a metric, and what tests wait for). */
    public long completedSyncs() {
        return completedSyncs;
    }

    @Override
    protected long idleWaitMs() {
        return lastSyncMs == Long.MIN_VALUE ? FIRST_TICK_MS : TICK_MS;
    }

    @Override
    protected boolean waitsAfterEveryRound() {
        return true;
    }

    @Override
    protected void onShutdown() {
        NettyRemotingClient c = client;
        if (c != null) {
            c.close();
        }
    }

    /**
     * A round waiting for a master that does not answer (hung, or cut off: its port still accepts connections) is
     * failed at once, so that a promotion does not wait out {@link #REQUEST_TIMEOUT_MS} in {@link #shutdown()}.
     */
    @Override
    protected void onShutdownRequested() {
        onShutdown();
    }
}
