package io.basalt.broker.grpc;

import io.basalt.broker.transaction.TransactionalMessages;
import io.basalt.store.MessageStore;
import io.basalt.store.QueryMessageResult;
import io.basalt.store.SelectedBuffer;
import io.basalt.store.StoredMessage;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Where the half message of a transaction is: its half-queue offset and CommitLog offset, which END_TRANSACTION
 * needs and a 5.x client's EndTransaction does not carry (it names the topic and transaction id only).
 *
 * <p>Filled at send time and when a back-check is pushed to a client (the check copy's offsets). Unlike RocketMQ's
 * proxy table, entries do not expire after 30 s: the newest {@value #CAPACITY} are kept, and a transaction not among
 * them is found in the store by its transaction id (= UNIQ_KEY, indexed with the half message), newest record first,
 * so a late commit of a long transaction still finds its half message.
 */
final class TransactionOffsets {
    static final int CAPACITY = 100_000;

    record Location(long tranStateTableOffset, long commitLogOffset) { }

    private final MessageStore store;
    private final Map<String, Location> recent = new LinkedHashMap<>(1024, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Location> eldest) {
            return size() > CAPACITY;
        }
    };

    TransactionOffsets(MessageStore store) {
        this.store = store;
    }

    synchronized void remember(String topic, String transactionId, Location location) {
        recent.put(key(topic, transactionId), location);
    }

    /** The half message of the transaction: remembered, else the newest half record of that id in the store. */
    Optional<Location> find(String topic, String transactionId) {
        synchronized (this) {
            Location l = recent.get(key(topic, transactionId));
            if (l != null) {
                return Optional.of(l);
            }
        }
        if (store == null) {
            return Optional.empty();
        }
        QueryMessageResult result = store.queryMessage(TransactionalMessages.HALF_TOPIC, transactionId, 32, 0,
            Long.MAX_VALUE);
        try {
            for (SelectedBuffer b : result.messages()) {
                StoredMessage half = store.lookMessageByOffset(b.startOffset());
                if (half != null && topic.equals(half.property(TransactionalMessages.PROPERTY_REAL_TOPIC))) {
                    return Optional.of(new Location(half.queueOffset(), half.physicalOffset()));
                }
            }
        } finally {
            result.close();
        }
        return Optional.empty();
    }

    private static String key(String topic, String transactionId) {
        return topic + '\u0000' + transactionId;
    }
}
