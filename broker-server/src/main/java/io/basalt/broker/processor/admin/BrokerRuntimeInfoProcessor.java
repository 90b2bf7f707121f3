package io.basalt.broker.processor.admin;

import io.basalt.broker.protocol.KVTable;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RemotingVersion;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.MessageStore;
import io.basalt.store.StoredMessage;
import io.basalt.store.TimerMessages;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * GET_BROKER_RUNTIME_INFO: a {@link KVTable} with the keys RocketMQ 5.2.0's broker reports and its
 * admin tool reads ({@code clusterList}, {@code brokerStatus}): version, message totals and rates,
 * CommitLog offsets, dispatch backlog, page-cache lock time, disk use, executor queues, and the timer
 * wheel's {@code timerReadBehind} (seconds), {@code timerOffsetBehind}, {@code timerCongestNum},
 * {@code timerEnqueueTps} and {@code timerDequeueTps} from {@link TimerMessages#stats()} (RocketMQ's "0" and
 * "0.0" with {@code timerWheelEnable=false}). Safe for concurrent calls.
 */
public final class BrokerRuntimeInfoProcessor implements RequestProcessor {
    /** RocketMQ's {@code MQVersion.getVersionDesc(CURRENT_VERSION)} for the version Basalt speaks. */
    static final String VERSION_DESC = "V5_2_0";

    /**
     * One executor queue, reported as {@code <name>ThreadPoolQueueSize}, {@code ...Capacity} and
     * {@code ...HeadWaitTimeMills} (how long the oldest queued request has waited).
     */
    public record ExecutorQueue(String name, IntSupplier size, int capacity, LongSupplier headWaitMs) {
        /** A queue whose head wait is not known: reported only while the queue is empty (0). */
        public ExecutorQueue(String name, IntSupplier size, int capacity) {
            this(name, size, capacity, null);
        }
    }

    private final MessageStore store;
    private final BrokerRuntimeStats stats;
    private final Path storePathRootDir;
    private final BooleanSupplier master;
    private final Supplier<Map<String, String>> replicationInfo;
    private final List<ExecutorQueue> queues;
    private final Supplier<Map<String, String>> scheduleInfo;
    private final TimerMessages timers;

    /**
     * @param queues RocketMQ's names: {@code send}, {@code pull}, {@code litePull}, {@code query}
     */
    public BrokerRuntimeInfoProcessor(MessageStore store, BrokerRuntimeStats stats, Path storePathRootDir,
        boolean master, List<ExecutorQueue> queues) {
        this(store, stats, storePathRootDir, () -> master, Map::of, queues, Map::of, store.timerMessages());
    }

    /**
     * @param master          whether this broker accepts writes now (brokerActive)
     * @param replicationInfo the replication fields (role, epoch, per-slave ack offset and lag)
     */
    public BrokerRuntimeInfoProcessor(MessageStore store, BrokerRuntimeStats stats, Path storePathRootDir,
        BooleanSupplier master, Supplier<Map<String, String>> replicationInfo, List<ExecutorQueue> queues) {
        this(store, stats, storePathRootDir, master, replicationInfo, queues, Map::of, store.timerMessages());
    }

    /** @param timers the store's timer wheel, for the timer keys */
    public BrokerRuntimeInfoProcessor(MessageStore store, BrokerRuntimeStats stats, Path storePathRootDir,
        BooleanSupplier master, Supplier<Map<String, String>> replicationInfo, List<ExecutorQueue> queues,
        TimerMessages timers) {
        this(store, stats, storePathRootDir, master, replicationInfo, queues, Map::of, timers);
    }

    /**
     * @param scheduleInfo the schedule service's {@code scheduleMessageOffset_<level>} keys
     * @param timers       the timer wheel, for the timer keys
     */
    public BrokerRuntimeInfoProcessor(MessageStore store, BrokerRuntimeStats stats, Path storePathRootDir,
        BooleanSupplier master, Supplier<Map<String, String>> replicationInfo, List<ExecutorQueue> queues,
        Supplier<Map<String, String>> scheduleInfo, TimerMessages timers) {
        this.scheduleInfo = scheduleInfo;
        this.store = store;
        this.stats = stats;
        this.storePathRootDir = storePathRootDir;
        this.master = master;
        this.replicationInfo = replicationInfo;
        this.queues = List.copyOf(queues);
        this.timers = timers;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(new KVTable(runtimeInfo()).encode());
        return CompletableFuture.completedFuture(response);
    }

    Map<String, String> runtimeInfo() {
        Map<String, String> info = new HashMap<>();
        info.put("brokerVersionDesc", VERSION_DESC);
        info.put("brokerVersion", Integer.toString(RemotingVersion.CURRENT));
        info.put("brokerActive", Boolean.toString(master.getAsBoolean()));
        info.putAll(replicationInfo.get());
        long now = System.currentTimeMillis();
        info.put("bootTimestamp", Long.toString(stats.bootTimestamp()));
        info.put("runtime", runtime(now - stats.bootTimestamp()));

        info.put("msgPutTotalYesterdayMorning", Long.toString(stats.putYesterdayMorning()));
        info.put("msgPutTotalTodayMorning", Long.toString(stats.putTodayMorning()));
        info.put("msgPutTotalTodayNow", Long.toString(stats.putTodayNow()));
        info.put("msgGetTotalYesterdayMorning", Long.toString(stats.gotYesterdayMorning()));
        info.put("msgGetTotalTodayMorning", Long.toString(stats.gotTodayMorning()));
        info.put("msgGetTotalTodayNow", Long.toString(stats.gotTodayNow()));
        info.put("putTps", stats.putTps());
        info.put("getTransferredTps", stats.gotTps());

        long minOffset = store.getMinPhyOffset();
        long maxOffset = store.getMaxPhyOffset();
        info.put("commitLogMinOffset", Long.toString(minOffset));
        info.put("commitLogMaxOffset", Long.toString(maxOffset));
        info.put("dispatchBehindBytes", Long.toString(store.dispatchBehindBytes()));
        info.put("pageCacheLockTimeMills", Long.toString(store.putLockHeldMs()));
        info.put("earliestMessageTimeStamp", Long.toString(earliestMessageTime(minOffset, maxOffset)));
        info.put("startAcceptSendRequestTimeStamp", "0");
        info.put("remainHowManyDataToFlush", humanReadable(Math.max(0, maxOffset - store.flushedOffset())));

        info.putAll(scheduleInfo.get());
        timerInfo(info);

        diskUsage(info);
        for (ExecutorQueue queue : queues) {
            int size = queue.size().getAsInt();
            info.put(queue.name() + "ThreadPoolQueueSize", Integer.toString(size));
            info.put(queue.name() + "ThreadPoolQueueCapacity", Integer.toString(queue.capacity()));
            if (queue.headWaitMs() != null) {
                info.put(queue.name() + "ThreadPoolQueueHeadWaitTimeMills", Long.toString(queue.headWaitMs().getAsLong()));
            } else if (size == 0) {
                info.put(queue.name() + "ThreadPoolQueueHeadWaitTimeMills", "0");
            }
        }
        return info;
    }

    /**
     * RocketMQ's timer keys: {@code timerReadBehind} in whole seconds ({@code getDequeueBehind()}), the TPS as
     * RocketMQ's {@code String.valueOf(float)} writes them.
     */
    private void timerInfo(Map<String, String> info) {
        TimerMessages.Stats t = timers.enabled() ? timers.stats() : TimerMessages.Stats.NONE;
        info.put("timerReadBehind", Long.toString(t.dequeueLagMillis() / 1000));
        info.put("timerOffsetBehind", Long.toString(t.enqueueLagMessages()));
        info.put("timerCongestNum", Long.toString(t.congestNum()));
        info.put("timerEnqueueTps", Float.toString((float) t.enqueueTps()));
        info.put("timerDequeueTps", Float.toString((float) t.dequeueTps()));
    }

    /** Store time of the oldest message in the CommitLog, -1 when it is empty (RocketMQ's value). */
    private long earliestMessageTime(long minOffset, long maxOffset) {
        if (maxOffset <= minOffset) {
            return -1;
        }
        StoredMessage first = store.lookMessageByOffset(minOffset);
        return first == null ? -1 : first.storeTimestamp();
    }

    private void diskUsage(Map<String, String> info) {
        try {
            FileStore disk = Files.getFileStore(storePathRootDir);
            long total = disk.getTotalSpace();
            long free = disk.getUsableSpace();
            double ratio = total <= 0 ? 0 : (double) (total - free) / total;
            String ratioText = Double.toString(ratio);
            info.put("commitLogDiskRatio", ratioText);
            info.put("consumeQueueDiskRatio", ratioText);
            info.put("commitLogDirCapacity", "Total : " + humanReadable(total) + ", Free : " + humanReadable(free) + ".");
        } catch (IOException e) {
            info.put("commitLogDirCapacity", "unknown: " + e.getMessage());
        }
    }

    /** RocketMQ's {@code "[ d days, h hours, m minutes, s seconds ]"}. */
    static String runtime(long elapsedMs) {
        Duration d = Duration.ofMillis(Math.max(0, elapsedMs));
        return "[ " + d.toDays() + " days, " + d.toHoursPart() + " hours, " + d.toMinutesPart() + " minutes, "
            + d.toSecondsPart() + " seconds ]";
    }

    /** RocketMQ's {@code MixAll.humanReadableByteCount(bytes, false)}: binary units, one decimal. */
    static String humanReadable(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        int exp = (int) (Math.log(bytes) / Math.log(1024));
        return String.format(Locale.ROOT, "%.1f %siB", bytes / Math.pow(1024, exp), "KMGTPE".charAt(exp - 1));
    }
}
