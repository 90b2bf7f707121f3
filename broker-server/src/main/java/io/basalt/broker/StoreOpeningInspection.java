package io.basalt.broker;

import com.fasterxml.jackson.databind.JsonNode;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.transaction.TransactionalMessages;
import io.basalt.store.MessageProperties;
import io.basalt.store.MessageStore;
import io.basalt.store.StoredMessage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Looks, once the store is loaded, at RocketMQ state in the store directory and logs one line per kind with how
 * much there is and what happens to it. State Basalt does not serve yet gets a WARN: timer messages while
 * {@code timerWheelEnable=false} (the wheel delivers them otherwise), a RocksDB consume queue;
 * nothing is changed or deleted, and the warnings come back at every start until the feature that serves the
 * state exists. Pending half (transaction) messages are served, by the transaction check service, so they get an
 * INFO line only: how many transactions are undecided and how old the oldest is, which says what the first check
 * scans will ask producers about; POP revive records are read by the revive service, an INFO line too. Pending delay-level messages are delivered by the schedule service and are no
 * finding. Read-only: it reads the store's queues and records through {@link MessageStore}, the consumer offsets,
 * and the files RocketMQ leaves (layouts: {@code scheduled-and-transactional} reference §2.4, §4.2, §4.6; POP §1.8).
 *
 * <p>Runs once on the start-up thread, after {@link MessageStore#load()} and before anything is served.
 */
final class StoreOpeningInspection {
    private static final Logger log = LoggerFactory.getLogger(StoreOpeningInspection.class);

    static final String HALF_TOPIC = TransactionalMessages.HALF_TOPIC;
    static final String OP_HALF_TOPIC = TransactionalMessages.OP_HALF_TOPIC;
    static final String TRANSACTION_GROUP = TransactionalMessages.SCAN_GROUP;
    static final String TIMER_TOPIC = "rmq_sys_wheel_timer";
    static final String REVIVE_TOPIC_PREFIX = "rmq_sys_REVIVE_LOG_";
    static final String REVIVE_GROUP = "CID_RMQ_SYS_REVIVE_GROUP";
    /** Op markers read at most per half queue: bounds the start-up cost; beyond it the estimate counts them as undecided. */
    static final int MAX_OP_MARKERS_READ = 100_000;
    /** Half records read at most per half queue (same bound); the ones beyond count as one transaction each. */
    static final int MAX_HALF_RECORDS_READ = 100_000;
    /** {@code config/timercheck}: lastTimerQueueOffset, the next rmq_sys_wheel_timer offset not yet in the wheel. */
    private static final int TIMERCHECK_QUEUE_OFFSET_POSITION = 16;

    /** The kinds of state, one line each. */
    enum Kind { HALF, TIMER, POP, ROCKSDB }

    /**
     * One kind of state: how much, the line that says it, and whether it is a warning (state Basalt does not serve,
     * or could not inspect) or information (state Basalt serves).
     */
    record Finding(Kind kind, long count, String message, boolean warning) {
        static Finding warning(Kind kind, long count, String message) {
            return new Finding(kind, count, message, true);
        }

        static Finding info(Kind kind, long count, String message) {
            return new Finding(kind, count, message, false);
        }
    }

    private final Path storeRoot;
    private final MessageStore store;
    private final ConsumerOffsetManager offsets;

    StoreOpeningInspection(Path storeRoot, MessageStore store, ConsumerOffsetManager offsets) {
        this.storeRoot = storeRoot;
        this.store = store;
        this.offsets = offsets;
    }

    /** Inspects and logs one line per finding: WARN for unserved state, INFO for pending state Basalt serves. */
    void logFindings() {
        for (Finding f : inspect()) {
            if (f.warning()) {
                log.warn(f.message());
            } else {
                log.info(f.message());
            }
        }
    }

    /** What the store holds pending, by kind; a kind with nothing pending is left out. */
    List<Finding> inspect() {
        List<Finding> found = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            try {
                Optional<Finding> f = switch (kind) {
                    case HALF -> half();
                    case TIMER -> timer();
                    case POP -> pop();
                    case ROCKSDB -> rocksDb();
                };
                f.ifPresent(found::add);
            } catch (IOException e) {
                // the inspection only informs: an unreadable file of a feature Basalt does not serve must not stop it
                found.add(Finding.warning(kind, -1, "Could not inspect the store for pending RocketMQ "
                    + kind.name().toLowerCase() + " state: " + e.getMessage()));
            }
        }
        return found;
    }

    private Path consumeQueueDir() {
        return storeRoot.resolve("consumequeue");
    }

    private Path configDir() {
        return storeRoot.resolve("config");
    }

    /** Queue ids that have a directory under {@code consumequeue/<topic>/}. */
    private Set<Integer> queueIds(String topic) throws IOException {
        Set<Integer> ids = new TreeSet<>();
        Path dir = consumeQueueDir().resolve(topic);
        if (!Files.isDirectory(dir)) {
            return ids;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, Files::isDirectory)) {
            for (Path p : entries) {
                try {
                    ids.add(Integer.parseInt(p.getFileName().toString()));
                } catch (NumberFormatException e) {
                    // not a queue directory; the store ignores it too
                }
            }
        }
        return ids;
    }

    /** {@code committed} clamped into the queue's [min, max], as RocketMQ corrects a stored offset; absent (-1) is min. */
    private long consumedUpTo(String topic, int queueId, long committed) {
        long min = store.getMinOffsetInQueue(topic, queueId);
        long max = store.getMaxOffsetInQueue(topic, queueId);
        return Math.max(min, Math.min(max, committed < 0 ? min : committed));
    }

    /**
     * Undecided transactions: the half records from CID_RMQ_SYS_TRANS's check offset on (at most
     * {@link #MAX_HALF_RECORDS_READ}), grouped by transaction id (a check copy is the same transaction as its
     * original), less every transaction one of whose records an op marker (from the op offset on, at most
     * {@link #MAX_OP_MARKERS_READ}) names; and the oldest born time among them. Records beyond the read bound count
     * as one transaction each. A commit whose op marker a crash lost still counts here: the check service finds its
     * committed record and does not deliver it again.
     */
    private Optional<Finding> half() throws IOException {
        long pending = 0;
        long oldestBorn = Long.MAX_VALUE;
        for (int queueId : queueIds(HALF_TOPIC)) {
            long from = consumedUpTo(HALF_TOPIC, queueId, offsets.queryOffset(TRANSACTION_GROUP, HALF_TOPIC, queueId));
            long to = store.getMaxOffsetInQueue(HALF_TOPIC, queueId);
            if (to <= from) {
                continue;
            }
            Set<Long> marked = markedDone(queueId, from, to);
            long readTo = Math.min(to, from + MAX_HALF_RECORDS_READ);
            Map<String, Long> undecidedBorn = new HashMap<>();
            Set<String> decided = new HashSet<>();
            for (long offset = from; offset < readTo; offset++) {
                long physicalOffset = store.getCommitLogOffsetInQueue(HALF_TOPIC, queueId, offset);
                StoredMessage half = physicalOffset < 0 ? null : store.lookMessageByOffset(physicalOffset);
                if (half == null) {
                    continue;
                }
                String transaction = transactionOf(half, offset);
                if (marked.contains(offset)) {
                    decided.add(transaction);
                } else {
                    undecidedBorn.merge(transaction, half.bornTimestamp(), Math::min);
                }
            }
            undecidedBorn.keySet().removeAll(decided);
            pending += undecidedBorn.size() + (to - readTo);
            for (long born : undecidedBorn.values()) {
                oldestBorn = Math.min(oldestBorn, born);
            }
        }
        if (pending <= 0) {
            return Optional.empty();
        }
        String oldest = oldestBorn == Long.MAX_VALUE ? "" : ", the oldest born "
            + Math.max(0, (System.currentTimeMillis() - oldestBorn) / 1000) + " s ago (" + Instant.ofEpochMilli(oldestBorn) + ")";
        return Optional.of(Finding.info(Kind.HALF, pending, pending + " undecided transactions in " + HALF_TOPIC
            + " (half records beyond " + TRANSACTION_GROUP + "'s check offset that no " + OP_HALF_TOPIC
            + " marker decides, check copies counted once)" + oldest + ": the transaction check service asks their"
            + " producer groups (CHECK_TRANSACTION_STATE) once they are transactionTimeOut old, every"
            + " transactionCheckInterval, and commits or rolls back as they answer"));
    }

    /** The half offsets in [{@code from}, {@code to}) that an op marker of {@code queueId} from the op offset on names. */
    private Set<Long> markedDone(int queueId, long from, long to) {
        Set<Long> marked = new HashSet<>();
        long opFrom = consumedUpTo(OP_HALF_TOPIC, queueId, offsets.queryOffset(TRANSACTION_GROUP, OP_HALF_TOPIC, queueId));
        long opTo = Math.min(store.getMaxOffsetInQueue(OP_HALF_TOPIC, queueId), opFrom + MAX_OP_MARKERS_READ);
        for (long op = opFrom; op < opTo; op++) {
            long physicalOffset = store.getCommitLogOffsetInQueue(OP_HALF_TOPIC, queueId, op);
            StoredMessage marker = physicalOffset < 0 ? null : store.lookMessageByOffset(physicalOffset);
            if (marker == null) {
                continue;
            }
            // 5.x: "17,18,21,"; 4.9: "17"
            for (String s : new String(marker.body(), StandardCharsets.UTF_8).split(",")) {
                try {
                    long halfOffset = Long.parseLong(s.trim());
                    if (halfOffset >= from && halfOffset < to) {
                        marked.add(halfOffset);
                    }
                } catch (NumberFormatException e) {
                    // not an offset; RocketMQ skips it too
                }
            }
        }
        return marked;
    }

    /** The transaction a half record (or a check copy of it) belongs to: its transaction id, else its own offset. */
    private static String transactionOf(StoredMessage half, long offset) {
        Map<String, String> properties = half.propertyMap();
        String id = properties.get(TransactionalMessages.PROPERTY_TRANSACTION_ID);
        if (id == null) {
            id = properties.get(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX);
        }
        return id != null ? id : "@" + offset;
    }

    /**
     * Timer messages, only while {@code timerWheelEnable=false} (with the wheel on, they are delivered): those the
     * wheel holds (config/timermetrics counts them per topic) plus the rmq_sys_wheel_timer entries not yet enqueued
     * into it (beyond config/timercheck's queue offset).
     */
    private Optional<Finding> timer() throws IOException {
        if (store.timerMessages().enabled()) {
            return Optional.empty();
        }
        boolean wheel = Files.exists(storeRoot.resolve("timerwheel"));
        boolean timerLog = Files.isDirectory(storeRoot.resolve("timerlog"));
        Set<Integer> queues = queueIds(TIMER_TOPIC);
        if (!wheel && !timerLog && queues.isEmpty()) {
            return Optional.empty();
        }
        long inWheel = 0;
        Optional<JsonNode> metrics = new JsonConfigFile(configDir().resolve("timermetrics")).load();
        if (metrics.isPresent()) {
            for (JsonNode topic : metrics.get().path("timingCount")) {
                inWheel += Math.max(0, topic.path("count").asLong());
            }
        }
        long enqueued = timerCheckQueueOffset();
        long notEnqueued = 0;
        for (int queueId : queues) {
            notEnqueued += store.getMaxOffsetInQueue(TIMER_TOPIC, queueId) - consumedUpTo(TIMER_TOPIC, queueId, enqueued);
        }
        long pending = inWheel + notEnqueued;
        if (pending == 0) {
            return Optional.empty();
        }
        return Optional.of(Finding.warning(Kind.TIMER, pending, pending + " timer messages pending (" + inWheel
            + " in the timer wheel per config/timermetrics, " + notEnqueued + " in " + TIMER_TOPIC
            + " not yet enqueued per config/timercheck) and timerWheelEnable=false: they stay stuck in " + TIMER_TOPIC
            + " and are not delivered until the broker starts with timerWheelEnable=true; timerwheel and timerlog/ are"
            + " left as they are"));
    }

    /** config/timercheck's lastTimerQueueOffset, or -1 (from the queue's start) without the file. */
    private long timerCheckQueueOffset() throws IOException {
        Path check = configDir().resolve("timercheck");
        if (!Files.exists(check)) {
            return -1;
        }
        try (FileChannel ch = FileChannel.open(check, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(8);
            while (b.hasRemaining()) {
                if (ch.read(b, TIMERCHECK_QUEUE_OFFSET_POSITION + b.position()) < 0) {
                    throw new IOException(check + " is shorter than " + (TIMERCHECK_QUEUE_OFFSET_POSITION + 8) + " bytes");
                }
            }
            return b.getLong(0);
        }
    }

    /** POP: revive-topic records (CKs and ACKs) beyond CID_RMQ_SYS_REVIVE_GROUP's offset, over every revive topic. */
    private Optional<Finding> pop() throws IOException {
        Set<String> reviveTopics = new TreeSet<>();
        if (Files.isDirectory(consumeQueueDir())) {
            try (DirectoryStream<Path> topics = Files.newDirectoryStream(consumeQueueDir(),
                p -> Files.isDirectory(p) && p.getFileName().toString().startsWith(REVIVE_TOPIC_PREFIX))) {
                topics.forEach(p -> reviveTopics.add(p.getFileName().toString()));
            }
        }
        long pending = 0;
        for (String topic : reviveTopics) {
            for (int queueId : queueIds(topic)) {
                pending += store.getMaxOffsetInQueue(topic, queueId)
                    - consumedUpTo(topic, queueId, offsets.queryOffset(REVIVE_GROUP, topic, queueId));
            }
        }
        if (pending == 0) {
            return Optional.empty();
        }
        return Optional.of(Finding.info(Kind.POP, pending, pending + " POP revive records (checkpoints and acks) in "
            + reviveTopics + " beyond " + REVIVE_GROUP + "'s revive offset: the master's revive threads read them and"
            + " deliver the messages popped and not acked again (non-order POP; order POP state is not served)"));
    }

    /** A RocksDB consume queue (storeType=defaultRocksDB) keeps its database files directly in consumequeue/. */
    private Optional<Finding> rocksDb() throws IOException {
        if (!Files.isDirectory(consumeQueueDir())) {
            return Optional.empty();
        }
        long files = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(consumeQueueDir(), Files::isRegularFile)) {
            for (Path p : entries) {
                String name = p.getFileName().toString();
                if (name.equals("CURRENT") || name.startsWith("MANIFEST-") || name.startsWith("OPTIONS-")
                    || name.endsWith(".sst")) {
                    files++;
                }
            }
        }
        if (files == 0) {
            return Optional.empty();
        }
        return Optional.of(Finding.warning(Kind.ROCKSDB, files, "consumequeue/ holds a RocksDB consume queue (" + files
            + " RocksDB files, storeType=defaultRocksDB): Basalt reads only file consume queues; it leaves these files"
            + " alone and builds file consume queues from the CommitLog, so what the CommitLog still holds is served"
            + " from those"));
    }
}
