package io.basalt.broker.transaction;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import io.basalt.broker.client.ProducerChannels;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.remoting.processor.RemotingConnection;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageResult;
import io.basalt.store.QueueEntry;
import io.basalt.store.StoredMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One scan of the back-check (RocketMQ's {@code TransactionalMessageServiceImpl.check}) over queue 0 of
 * {@code RMQ_SYS_TRANS_HALF_TOPIC}, from the {@code CID_RMQ_SYS_TRANS} offset (none: the queue's minimum) to the end
 * the queue had when the scan started; what the scan appends (check copies, immunity copies) is for the next scan,
 * so each half message is checked at most once per scan. Every op marker from the group's op offset on is read
 * first ({@link OpMarkers}). Then, per half record:
 * <ol>
 *   <li>named by an op marker, or marked done by END_TRANSACTION and not yet in a marker
 *       ({@link TransactionDecisions#isMarkedDone}): done;</li>
 *   <li>stored after the scan started: stop (fresh);</li>
 *   <li>checked {@code transactionCheckMax} times, or born more than {@code fileReservedTime} ago: given up
 *       ({@link GivenUpTransactions}) unless its transaction is decided;</li>
 *   <li>with CHECK_IMMUNITY_TIME_IN_SECONDS and younger than that: done if its original (TRAN_PREPARED_QUEUE_OFFSET)
 *       is decided, else an immunity copy carrying the original's offset is appended;</li>
 *   <li>without it and younger than {@code transactionTimeOut}: stop (everything after is younger);</li>
 *   <li>otherwise it needs a check. Its transaction may already be decided although no marker says so (a commit
 *       whose marker a crash lost, an original commit after a check copy was made): then it is marked done
 *       ({@link TransactionDecisions#markDone}) and nobody is asked. Else a check copy with TRANSACTION_CHECK_TIMES
 *       + 1 is appended and CHECK_TRANSACTION_STATE goes to a live producer of the group, the one that sent the
 *       message when it is still connected ({@link ProducerChannels#checkChannel}).</li>
 * </ol>
 * Last, both {@code CID_RMQ_SYS_TRANS} offsets are committed, and the age of the oldest undecided half message per
 * real topic is reported. A write that fails stops the scan at that record, which the next scan takes up again.
 * Run by one thread at a time.
 */
final class HalfQueueScan {
    private static final Logger log = LoggerFactory.getLogger("RocketmqTransaction");
    /** RocketMQ's MAX_PROCESS_TIME_LIMIT: a scan longer than this stops and the next goes on. */
    static final long MAX_SCAN_MS = 60_000;
    private static final int READ_BATCH = 256;
    private static final long PUT_TIMEOUT_MS = 10_000;

    /** What one scan did. */
    record Report(long halfOffset, long opOffset, int checked, int parked, int immunityCopies, int givenUp,
                  int decided, int markedDone, Map<String, Long> oldestUndecidedAgeMs) {
    }

    private enum Step { NEXT, STOP }

    private final MessageStore store;
    private final ConsumerOffsetManager offsets;
    private final TransactionDecisions decisions;
    private final ProducerChannels channels;
    private final TransactionChecks checks;
    private final GivenUpTransactions givenUp;
    private final TransactionCounters counters;
    private final InetSocketAddress storeHost;
    private final LongSupplier clock;
    private final CheckSettings settings;

    HalfQueueScan(MessageStore store, ConsumerOffsetManager offsets, TransactionDecisions decisions,
                  ProducerChannels channels, TransactionChecks checks, GivenUpTransactions givenUp,
                  TransactionCounters counters, InetSocketAddress storeHost, LongSupplier clock, CheckSettings settings) {
        this.store = store;
        this.offsets = offsets;
        this.decisions = decisions;
        this.channels = channels;
        this.checks = checks;
        this.givenUp = givenUp;
        this.counters = counters;
        this.storeHost = storeHost;
        this.clock = clock;
        this.settings = settings;
    }

    /** The state of one scan. */
    private final class Round {
        final long startMs = clock.getAsLong();
        final Map<String, Long> oldest = new HashMap<>();
        OpMarkers markers;
        int checked;
        int parked;
        int immunityCopies;
        int givenUpCount;
        int decided;
        int markedDone;

        void undecided(String realTopic, long ageMs) {
            oldest.merge(realTopic, Math.max(0, ageMs), Math::max);
        }
    }

    /** One scan; {@code writable} is asked before each record, and the scan stops when it turns false (fenced). */
    Report run(BooleanSupplier writable) {
        Round round = new Round();
        String half = TransactionalMessages.HALF_TOPIC;
        int queueId = TransactionalMessages.HALF_QUEUE_ID;
        long halfOffset = committedOrMin(half);
        long opOffset = committedOrMin(TransactionalMessages.OP_HALF_TOPIC);
        long min = store.getMinOffsetInQueue(half, queueId);
        long end = store.getMaxOffsetInQueue(half, queueId);
        if (halfOffset < min) {
            log.warn("half offset {} is below the half queue's minimum {} (its files were cleaned); going on from there",
                halfOffset, min);
            halfOffset = min;
        }
        round.markers = OpMarkers.load(store, opOffset, halfOffset, Math.max(end, halfOffset));
        long next = halfOffset;
        scan:
        while (next < end) {
            List<QueueEntry> entries = store.readQueueEntries(half, queueId, next, (int) Math.min(READ_BATCH, end - next));
            if (entries.isEmpty()) {
                break;
            }
            for (QueueEntry entry : entries) {
                if (!writable.getAsBoolean()) {
                    log.warn("this broker no longer accepts writes: the check scan stops at half offset {}", next);
                    break scan;
                }
                if (clock.getAsLong() - round.startMs > MAX_SCAN_MS) {
                    log.info("Queue={} process time reach max={}", half, MAX_SCAN_MS);
                    break scan;
                }
                if (visit(entry, round) == Step.STOP) {
                    break scan;
                }
                next = entry.queueOffset() + 1;
            }
        }
        long nextOpOffset = round.markers.nextOpOffset(next);
        commit(half, halfOffset, next);
        commit(TransactionalMessages.OP_HALF_TOPIC, opOffset, nextOpOffset);
        counters.oldestUndecided(round.oldest);
        Report report = new Report(next, nextOpOffset, round.checked, round.parked, round.immunityCopies,
            round.givenUpCount, round.decided, round.markedDone, Map.copyOf(round.oldest));
        log.info("After check, halfOffset {} -> {} (end {}), opOffset {} -> {} ({} markers read): {} checked, {} waiting"
                + " for a producer, {} immunity copies, {} given up, {} decided, {} found decided without a marker",
            halfOffset, next, end, opOffset, nextOpOffset, round.markers.count(), round.checked, round.parked,
            round.immunityCopies, round.givenUpCount, round.decided, round.markedDone);
        return report;
    }

    private long committedOrMin(String topic) {
        long committed = offsets.queryOffset(TransactionalMessages.SCAN_GROUP, topic, TransactionalMessages.HALF_QUEUE_ID);
        return committed >= 0 ? committed : store.getMinOffsetInQueue(topic, TransactionalMessages.HALF_QUEUE_ID);
    }

    private void commit(String topic, long from, long to) {
        if (to != from) {
            offsets.commitOffset(storeHost.getAddress().getHostAddress() + ":" + storeHost.getPort(),
                TransactionalMessages.SCAN_GROUP, topic, TransactionalMessages.HALF_QUEUE_ID, to);
        }
    }

    private Step visit(QueueEntry entry, Round round) {
        long offset = entry.queueOffset();
        if (round.markers.isDecided(offset) || decisions.isMarkedDone(offset)) {
            round.decided++;
            return Step.NEXT;
        }
        StoredMessage half = entry.size() == Integer.MAX_VALUE ? null : store.lookMessageByOffset(entry.physicalOffset());
        if (half == null) {
            log.warn("half message {} has no readable record (CommitLog cleaned or damaged there); skipped", offset);
            return Step.NEXT;
        }
        if (half.storeTimestamp() >= round.startMs) {
            return Step.STOP;
        }
        Map<String, String> properties = half.propertyMap();
        long original = HalfMessages.preparedQueueOffset(properties);
        if (original >= 0 && (round.markers.isDecided(original) || decisions.isMarkedDone(original))) {
            // a copy of a half message whose original was decided (RocketMQ looks only while the immunity lasts)
            round.decided++;
            return Step.NEXT;
        }
        String realTopic = HalfMessages.realTopic(half);
        long ageMs = clock.getAsLong() - half.bornTimestamp();
        int checksSent = HalfMessages.checkTimes(properties);
        if (checks.notSent(offset) && checksSent > 0) {
            checksSent--;
        }
        boolean tooOld = ageMs > settings.fileReservedTimeMs();
        if (checksSent >= settings.transactionCheckMax() || tooOld) {
            if (alreadyDecided(offset, half, round)) {
                return Step.NEXT;
            }
            String why = tooOld ? "older than fileReservedTime " + settings.fileReservedTimeHours() + " h"
                : checksSent + " checks, transactionCheckMax " + settings.transactionCheckMax();
            if (!givenUp.giveUp(half, properties, offset, why)) {
                return Step.STOP;
            }
            round.givenUpCount++;
            return Step.NEXT;
        }
        long immunityMs = HalfMessages.immunityMs(properties, settings.transactionTimeOutMs());
        if (immunityMs >= 0 && ageMs < immunityMs) {
            return immune(offset, half, properties, realTopic, ageMs, round);
        }
        if (immunityMs < 0 && ageMs >= 0 && ageMs < settings.transactionTimeOutMs()) {
            round.undecided(realTopic, ageMs);
            return Step.STOP;
        }
        if (alreadyDecided(offset, half, round)) {
            return Step.NEXT;
        }
        round.undecided(realTopic, ageMs);
        return check(half, properties, checksSent, round);
    }

    /**
     * A half message under its CHECK_IMMUNITY_TIME_IN_SECONDS, its original not decided: carried on as an immunity
     * copy naming the original's offset, so that the scan goes on past it.
     */
    private Step immune(long offset, StoredMessage half, Map<String, String> properties, String realTopic, long ageMs,
                        Round round) {
        long original = HalfMessages.preparedQueueOffset(properties);
        if (alreadyDecided(offset, half, round)) {
            return Step.NEXT;
        }
        round.undecided(realTopic, ageMs);
        properties.put(TransactionalMessages.PROPERTY_TRANSACTION_PREPARED_QUEUE_OFFSET,
            Long.toString(original >= 0 ? original : offset));
        if (append(HalfMessages.halfQueueCopy(half, properties, storeHost)) == null) {
            return Step.STOP;
        }
        round.immunityCopies++;
        return Step.NEXT;
    }

    /** Decided although no marker says so: marked done now, nobody asked. */
    private boolean alreadyDecided(long offset, StoredMessage half, Round round) {
        Optional<TransactionDecisions.Decision> decision = decisions.decisionFor(half);
        if (decision.isEmpty()) {
            return false;
        }
        decisions.markDone(offset, half, decision.get());
        round.markedDone++;
        log.info("Half message {} (uniqKey={}) is already {}: marked done, not checked", offset,
            half.property(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX), decision.get());
        return true;
    }

    private Step check(StoredMessage half, Map<String, String> properties, int checksSent, Round round) {
        String group = HalfMessages.producerGroup(properties);
        Optional<RemotingConnection> connection = group == null ? Optional.empty()
            : channels.checkChannel(group, half.bornHost());
        if (connection.isEmpty()) {
            // Nobody to ask: no check is spent (RocketMQ counts it anyway and gives the message up unasked, #8311).
            // The scan must neither stop here (every later half message would wait for this group's producers) nor
            // come back to it before the next interval (a check storm once a producer connects), so the record is
            // carried on as a copy with its count unchanged, at the queue's end, where the next scan meets it.
            if (properties.containsKey(TransactionalMessages.PROPERTY_TRANSACTION_CHECK_TIMES)) {
                properties.put(TransactionalMessages.PROPERTY_TRANSACTION_CHECK_TIMES, Integer.toString(checksSent));
            }
            if (append(HalfMessages.halfQueueCopy(half, properties, storeHost)) == null) {
                return Step.STOP;
            }
            log.warn("Check transaction failed, channel is null. groupId={}, uniqKey={}: no live producer of the group;"
                    + " asked at the next check, {} checks so far", group,
                properties.get(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX), checksSent);
            round.parked++;
            return Step.NEXT;
        }
        properties.put(TransactionalMessages.PROPERTY_TRANSACTION_CHECK_TIMES, Integer.toString(checksSent + 1));
        StoredMessage copy = append(HalfMessages.halfQueueCopy(half, properties, storeHost));
        if (copy == null) {
            return Step.STOP;
        }
        checks.send(copy, connection.get(), group);
        round.checked++;
        return Step.NEXT;
    }

    /** Appends a copy and reads it back as stored; null when it could not be written. */
    private StoredMessage append(BrokerMessage copy) {
        PutMessageResult put = HalfQueueWrites.put(store, copy, PUT_TIMEOUT_MS);
        if (put == null || !put.status().isStored()) {
            log.error("PutBackToHalfQueueReturnResult write failed ({}), topic: {}, msgId: {}; the scan stops here",
                put, copy.topic(), copy.uniqKey());
            return null;
        }
        StoredMessage stored = store.lookMessageByOffset(put.appendResult().physicalOffset());
        if (stored == null) {
            log.error("the copy written at CommitLog offset {} does not read back; the scan stops here",
                put.appendResult().physicalOffset());
        }
        return stored;
    }
}
