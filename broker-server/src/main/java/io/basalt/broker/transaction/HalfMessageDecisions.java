package io.basalt.broker.transaction;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.LongSupplier;

import io.basalt.store.MessageProperties;
import io.basalt.store.MessageStore;
import io.basalt.store.QueryMessageResult;
import io.basalt.store.SelectedBuffer;
import io.basalt.store.StoredMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's {@link TransactionDecisions}: decisions remembered by transaction (the half message's UNIQ_KEY, which
 * every check copy keeps) and by half-queue offset, op markers handed to the {@link OpMarkerWriter}.
 *
 * <p><b>Transactions from before this process.</b> A half message stored before the broker started (or one whose
 * commit was stored but whose op marker a kill -9 lost) is not in the tables: for it {@link #decisionFor} looks for
 * the committed record in the store, through the index ({@code queryMessage(REAL_TOPIC, UNIQ_KEY)}, which indexes
 * UNIQ_KEY), a record with the COMMIT transaction bits carrying the same transaction. That lookup is made only for a
 * half record stored before start, a check copy of a message born before start, or a half record below the pruned
 * mark (below); a transaction this process saw from its half send is answered from memory. A rollback from before
 * start leaves only its op marker, which the check scan reads.
 *
 * <p><b>Bounds.</b> {@link #prune} drops what the check scan no longer needs: done offsets below the scan's
 * committed half offset (the scan never reads below it again), and transactions all of whose half records lie below
 * it. Each transaction keeps the half queue's end offset at the time of its latest decision: no half record of it
 * can be at or above that (the scan copies only undecided ones), so once the scan's committed offset reaches it, the
 * entry goes. Half records below the pruned mark are looked up in the store again, so a late END_TRANSACTION for
 * a pruned commit still writes nothing twice; a late decision contradicting a pruned rollback is no longer seen.
 * Should the scan not advance (it runs on the master only), the table is emptied at {@code maxTransactions} and the
 * mark raised to the half queue's end, which keeps the answers right at the cost of store lookups.
 *
 * <p>Thread-safe. {@link #claim} serialises the decisions for one transaction so that two END_TRANSACTIONs racing
 * for it cannot both write.
 */
public final class HalfMessageDecisions implements TransactionDecisions {
    private static final Logger log = LoggerFactory.getLogger("RocketmqTransaction");
    /** Committed records with one UNIQ_KEY read per lookup (a message id is unique; retries of a topic add few). */
    static final int LOOKUP_MAX_RECORDS = 64;
    /** About 30 MB of decisions; past it the table is emptied (see the class comment). */
    public static final int DEFAULT_MAX_TRANSACTIONS = 200_000;

    private record Decided(Decision decision, long halfQueueEnd) {
    }

    private final MessageStore store;
    private final OpMarkerWriter markers;
    private final LongSupplier scanCommittedHalfOffset;
    private final LongSupplier clock;
    private final int maxTransactions;
    private final ConcurrentMap<String, Decided> byTransaction = new ConcurrentHashMap<>();
    /** Decisions being stored (a commit's record put): a second request for the transaction sees it as made. */
    private final ConcurrentMap<String, Decision> inFlight = new ConcurrentHashMap<>();
    /** Half-queue offsets marked done by this process, with their decision; pending and written markers alike. */
    private final ConcurrentSkipListMap<Long, Decision> doneOffsets = new ConcurrentSkipListMap<>();
    private volatile long startCommitLogOffset = Long.MAX_VALUE;
    private volatile long startTimeMs = Long.MAX_VALUE;
    private volatile long prunedBelow;

    /**
     * @param scanCommittedHalfOffset the check scan's committed offset in the half queue (group CID_RMQ_SYS_TRANS),
     *                                -1 when it has none
     */
    public HalfMessageDecisions(MessageStore store, OpMarkerWriter markers, LongSupplier scanCommittedHalfOffset,
                                LongSupplier clock, int maxTransactions) {
        this.store = store;
        this.markers = markers;
        this.scanCommittedHalfOffset = scanCommittedHalfOffset;
        this.clock = clock;
        this.maxTransactions = maxTransactions;
    }

    /**
     * Called when this broker starts deciding: once the store is loaded, before requests are served, and again when a
     * slave is promoted (its master decided everything it replicated so far). Records what "before" means (the
     * CommitLog's end and the time now). Until the first call every undecided transaction is looked up in the store.
     */
    public void beginDeciding() {
        startCommitLogOffset = store.getMaxPhyOffset();
        startTimeMs = clock.getAsLong();
    }

    /** The transaction of a half record: its UNIQ_KEY (or the broker's copy of it), null when it has none. */
    static String transactionOf(StoredMessage half) {
        Map<String, String> properties = half.propertyMap();
        String id = properties.get(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX);
        if (id == null || id.isEmpty()) {
            id = properties.get(TransactionalMessages.PROPERTY_TRANSACTION_ID);
        }
        return id == null || id.isEmpty() ? null : id;
    }

    @Override
    public Optional<Decision> decisionFor(StoredMessage half) {
        String transaction = transactionOf(half);
        if (transaction == null) {
            return Optional.ofNullable(doneOffsets.get(half.queueOffset()));
        }
        Decided decided = byTransaction.get(transaction);
        if (decided != null) {
            return Optional.of(decided.decision());
        }
        if (!mayBeDecidedOutOfMemory(half)) {
            return Optional.empty();
        }
        if (committedInStore(half, transaction)) {
            remember(transaction, Decision.COMMIT);
            return Optional.of(Decision.COMMIT);
        }
        return Optional.empty();
    }

    /** Whether a decision for {@code half}'s transaction could exist that these tables do not hold. */
    private boolean mayBeDecidedOutOfMemory(StoredMessage half) {
        if (half.physicalOffset() < startCommitLogOffset || half.queueOffset() < prunedBelow) {
            return true;
        }
        // a check copy this process wrote of a message from before it started
        return half.bornTimestamp() < startTimeMs
            && (half.properties().contains(TransactionalMessages.PROPERTY_TRANSACTION_CHECK_TIMES)
            || half.properties().contains(TransactionalMessages.PROPERTY_TRANSACTION_PREPARED_QUEUE_OFFSET));
    }

    /** Whether the real topic holds a committed record of {@code transaction} (the index keys UNIQ_KEY). */
    private boolean committedInStore(StoredMessage half, String transaction) {
        String realTopic = half.property(TransactionalMessages.PROPERTY_REAL_TOPIC);
        if (realTopic == null) {
            return false;
        }
        try (QueryMessageResult found = store.queryMessage(realTopic, transaction, LOOKUP_MAX_RECORDS, 0, Long.MAX_VALUE)) {
            for (SelectedBuffer b : found.messages()) {
                StoredMessage m = store.lookMessageByOffset(b.startOffset());
                if (m != null && TransactionalMessages.transactionType(m.sysFlag())
                    == TransactionalMessages.TRANSACTION_COMMIT_TYPE && transaction.equals(transactionOf(m))) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public boolean isMarkedDone(long halfQueueOffset) {
        return doneOffsets.containsKey(halfQueueOffset);
    }

    @Override
    public void markDone(long halfQueueOffset, StoredMessage half, Decision decision) {
        String transaction = transactionOf(half);
        if (transaction != null) {
            remember(transaction, decision);
        }
        if (doneOffsets.putIfAbsent(halfQueueOffset, decision) == null) {
            markers.add(halfQueueOffset);
        }
    }

    private void remember(String transaction, Decision decision) {
        long end = store.getMaxOffsetInQueue(TransactionalMessages.HALF_TOPIC, TransactionalMessages.HALF_QUEUE_ID);
        // the first decision stays; the end offset only grows
        byTransaction.merge(transaction, new Decided(decision, end),
            (old, next) -> new Decided(old.decision(), Math.max(old.halfQueueEnd(), next.halfQueueEnd())));
    }

    /**
     * The answer of {@link #claim}: granted (the caller must store its decision and call {@link #markDone}, or
     * {@link #release} if storing failed), or the decision already made ({@code settled}) or being stored by another
     * request (not settled: it may still fail), which the caller must not act on again.
     */
    public record Claim(Decision existing, boolean settled) {
        static final Claim GRANTED = new Claim(null, false);

        public boolean granted() {
            return existing == null;
        }
    }

    /** Claims the right to act on {@code decision} for {@code half}'s transaction (see {@link Claim}). */
    public Claim claim(StoredMessage half, Decision decision) {
        String transaction = transactionOf(half);
        if (transaction == null) {
            Decision done = doneOffsets.get(half.queueOffset());
            return done == null ? Claim.GRANTED : new Claim(done, true);
        }
        Optional<Decision> made = decisionFor(half);
        if (made.isPresent()) {
            return new Claim(made.get(), true);
        }
        Decision other = inFlight.putIfAbsent(transaction, decision);
        if (other != null) {
            return new Claim(other, false);
        }
        // a decision remembered between the look and the claim
        Decided decided = byTransaction.get(transaction);
        if (decided != null) {
            inFlight.remove(transaction, decision);
            return new Claim(decided.decision(), true);
        }
        return Claim.GRANTED;
    }

    /** Ends a claim: after {@link #markDone} (the decision is remembered) or after a failure to store it. */
    public void release(StoredMessage half, Decision decision) {
        String transaction = transactionOf(half);
        if (transaction != null) {
            inFlight.remove(transaction, decision);
        }
    }

    /** Drops what the check scan no longer needs (see the class comment). Called periodically. */
    public void prune() {
        long mark = scanCommittedHalfOffset.getAsLong();
        if (byTransaction.size() > maxTransactions) {
            long end = store.getMaxOffsetInQueue(TransactionalMessages.HALF_TOPIC, TransactionalMessages.HALF_QUEUE_ID);
            log.warn("{} decided transactions remembered (more than {}), the check scan is at half offset {}: forgetting"
                + " them up to half offset {}; later decisions for them are checked against the store", byTransaction.size(),
                maxTransactions, mark, end);
            mark = Math.max(mark, end);
        }
        if (mark <= prunedBelow) {
            return;
        }
        long below = mark;
        // raise the mark first: a half record that loses its entry is looked up from now on
        prunedBelow = below;
        doneOffsets.headMap(below).clear();
        byTransaction.values().removeIf(d -> d.halfQueueEnd() <= below);
    }

    /** Transactions remembered now (a gauge). */
    public int rememberedTransactions() {
        return byTransaction.size();
    }

    /** Done half offsets remembered now (a gauge). */
    public int rememberedOffsets() {
        return doneOffsets.size();
    }
}
