package io.basalt.broker.metrics;

import io.basalt.ha.BrokerRole;
import io.basalt.ha.EpochFile;
import io.basalt.ha.Replication;
import io.basalt.ha.SlaveStatus;
import io.basalt.ha.slave.ReplicaClient;
import io.basalt.store.MessageStore;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Replication as operators watch it: the role, the epoch and its history, the SyncStateSet's size, each slave's
 * acknowledged offset, lag in bytes and seconds and whether it is in sync, transfer rates, elections and how long
 * the broker group has been without a master. One view behind the Prometheus gauges ({@code basalt_ha_*}), the
 * status page and the GET_BROKER_HA_STATUS / GET_BROKER_EPOCH_CACHE answers ({@code mqadmin haStatus},
 * {@code getBrokerEpoch}, {@code mqha status}).
 *
 * <p>Whoever decides roles reports through {@link Events}: an election it saw, the master lost, a master found.
 * The SyncStateSet size is, until something else is {@linkplain #syncStateSetSize(IntSupplier) installed}, the
 * classic-mode meaning: this master plus its in-sync slaves (1 on a master without one, 0 on a slave).
 *
 * <p>{@link #sample()} runs once a second on the metrics thread (transfer rates, the slave's last streaming
 * time); everything else is read when asked. Any thread.
 */
public final class HaMetrics {

    /** What the role logic tells the metrics; every method is cheap and never blocks. */
    public interface Events {
        /** An election of this broker set's master happened (won by this broker or another). */
        void recordElection();

        /** This broker no longer knows a live master of its set (no-op when already so). */
        void masterLost();

        /** This broker knows a live master of its set again (itself included; no-op when already so). */
        void masterFound();
    }

    /** One slave as a master sees it, with what the metrics add. */
    public record SlaveView(SlaveStatus status, boolean inSync, long transferredBytesPerSecond) {
    }

    private final Replication replication;
    private final MessageStore store;
    private final long haMaxGapNotInSync;
    private final LongSupplier clock;
    private final AtomicLong elections = new AtomicLong();
    /** When the master was lost, -1 while a master is known. */
    private final AtomicLong masterLostAt = new AtomicLong(-1);
    private volatile IntSupplier syncStateSetSize;
    /** Controller mode: the role manager's own counts replace the events' (null in classic mode). */
    private volatile LongSupplier controllerElections;
    private volatile LongSupplier controllerMsWithoutMaster;
    private final Events events = new Events() {
        @Override
        public void recordElection() {
            elections.incrementAndGet();
        }

        @Override
        public void masterLost() {
            masterLostAt.compareAndSet(-1, clock.getAsLong());
        }

        @Override
        public void masterFound() {
            masterLostAt.set(-1);
        }
    };

    // sampling state, metrics thread only (published through the volatile fields below)
    private long lastSampleMs = -1;
    private Map<String, Long> lastAckByAddress = new HashMap<>();
    private long lastLocalMax = -1;
    private volatile Map<String, Long> slaveRates = Map.of();
    private volatile long clientRate;
    private volatile long lastStreamingMs;

    /**
     * @param haMaxGapNotInSync a slave less than this many bytes behind is in sync (RocketMQ's classic rule)
     */
    public HaMetrics(Replication replication, MessageStore store, long haMaxGapNotInSync, LongSupplier clock) {
        this.replication = replication;
        this.store = store;
        this.haMaxGapNotInSync = haMaxGapNotInSync;
        this.clock = clock;
        this.syncStateSetSize = this::classicSyncStateSetSize;
    }

    /** Where elections and master loss are reported. */
    public Events events() {
        return events;
    }

    /** Replaces how the SyncStateSet size is read (controller mode: the set the Controller last confirmed). */
    public void syncStateSetSize(IntSupplier size) {
        this.syncStateSetSize = size;
    }

    public int syncStateSetSize() {
        return syncStateSetSize.getAsInt();
    }

    private int classicSyncStateSetSize() {
        if (replication.role() == BrokerRole.SLAVE) {
            return 0;
        }
        int n = 1;
        for (SlaveStatus s : replication.slaves()) {
            if (inSync(s)) {
                n++;
            }
        }
        return n;
    }

    /** RocketMQ's classic in-sync rule ({@code DefaultHAService.isInSyncSlave}): less than haMaxGapNotInSync behind. */
    public boolean inSync(SlaveStatus s) {
        return s.lagBytes() < haMaxGapNotInSync;
    }

    public String role() {
        return replication.role().name();
    }

    public long epoch() {
        return replication.epoch();
    }

    public List<EpochFile.Entry> epochEntries() {
        return replication.epochEntries();
    }

    /**
     * Controller mode: elections, time without a master and the SyncStateSet size are the role manager's (what the
     * Controller told this broker), not counted here.
     */
    public void followController(LongSupplier elections, LongSupplier msWithoutMaster, IntSupplier syncStateSetSize) {
        this.controllerElections = elections;
        this.controllerMsWithoutMaster = msWithoutMaster;
        this.syncStateSetSize = syncStateSetSize;
    }

    public long elections() {
        LongSupplier c = controllerElections;
        return c != null ? c.getAsLong() : elections.get();
    }

    /** How long no master has been known, seconds; 0 while one is. */
    public double secondsWithoutMaster() {
        LongSupplier c = controllerMsWithoutMaster;
        if (c != null) {
            return c.getAsLong() / 1000.0;
        }
        long since = masterLostAt.get();
        return since < 0 ? 0 : Math.max(0, clock.getAsLong() - since) / 1000.0;
    }

    /** Every streaming slave, in sync or not, with its acknowledged bytes per second over the last sample. */
    public List<SlaveView> slaves() {
        Map<String, Long> rates = slaveRates;
        List<SlaveView> out = new ArrayList<>();
        for (SlaveStatus s : replication.slaves()) {
            out.add(new SlaveView(s, inSync(s), rates.getOrDefault(s.address(), 0L)));
        }
        return out;
    }

    /** On a slave: bytes per second its CommitLog grew over the last sample. */
    public long clientTransferredBytesPerSecond() {
        return clientRate;
    }

    /** On a slave: the last sample time its HA client was streaming from a master, 0 before any. */
    public long lastStreamingMillis() {
        return lastStreamingMs;
    }

    /** Samples transfer rates and the slave's streaming state; the metrics thread calls it every second. */
    public void sample() {
        long now = clock.getAsLong();
        double seconds = lastSampleMs < 0 ? 0 : (now - lastSampleMs) / 1000.0;
        Map<String, Long> acks = new HashMap<>();
        Map<String, Long> rates = new HashMap<>();
        for (SlaveStatus s : replication.slaves()) {
            acks.put(s.address(), s.ackOffset());
            Long before = lastAckByAddress.get(s.address());
            if (before != null && seconds > 0) {
                rates.put(s.address(), (long) (Math.max(0, s.ackOffset() - before) / seconds));
            }
        }
        lastAckByAddress = acks;
        slaveRates = Map.copyOf(rates);
        ReplicaClient client = replication.client();
        long localMax = store.getMaxPhyOffset();
        if (client != null) {
            clientRate = lastLocalMax >= 0 && seconds > 0 ? (long) (Math.max(0, localMax - lastLocalMax) / seconds) : 0;
            if ("TRANSFER".equals(client.stateName())) {
                lastStreamingMs = now;
            }
        } else {
            clientRate = 0;
        }
        lastLocalMax = localMax;
        lastSampleMs = now;
    }

    /** Registers the {@code basalt_ha_*} gauges and counters that {@link BrokerMetrics} does not already have. */
    void register(PrometheusRegistry registry) {
        GaugeWithCallback.builder().name("basalt_ha_role")
            .help("1 for this broker's replication role (SYNC_MASTER, ASYNC_MASTER, SLAVE), 0 for the others")
            .labelNames("role")
            .callback(cb -> {
                BrokerRole current = replication.role();
                for (BrokerRole r : BrokerRole.values()) {
                    cb.call(r == current ? 1 : 0, r.name());
                }
            }).register(registry);
        GaugeWithCallback.builder().name("basalt_ha_epoch")
            .help("The newest epoch in the epoch file (0 before the first)")
            .callback(cb -> cb.call(epoch())).register(registry);
        GaugeWithCallback.builder().name("basalt_ha_sync_state_set_size")
            .help("Replicas in the SyncStateSet (classic mode: this master and its in-sync slaves; 0 on a slave)")
            .callback(cb -> cb.call(syncStateSetSize())).register(registry);
        GaugeWithCallback.builder().name("basalt_ha_slave_in_sync")
            .help("1 when the slave is in sync (less than haMaxGapNotInSync behind), else 0")
            .labelNames("slave", "broker_id")
            .callback(cb -> slaves().forEach(v -> cb.call(v.inSync() ? 1 : 0, v.status().brokerAddr(),
                Long.toString(v.status().brokerId())))).register(registry);
        GaugeWithCallback.builder().name("basalt_ha_slave_transfer_bytes_per_second")
            .help("Bytes per second the slave acknowledged over the last second")
            .labelNames("slave", "broker_id")
            .callback(cb -> slaves().forEach(v -> cb.call(v.transferredBytesPerSecond(), v.status().brokerAddr(),
                Long.toString(v.status().brokerId())))).register(registry);
        CounterWithCallback.builder().name("basalt_ha_elections")
            .help("Elections of this broker set's master this broker took part in or learnt of")
            .callback(cb -> cb.call(elections())).register(registry);
        GaugeWithCallback.builder().name("basalt_ha_seconds_without_master")
            .help("How long this broker has known no live master of its set, seconds (0 while one is known)")
            .callback(cb -> cb.call(secondsWithoutMaster())).register(registry);
    }
}
