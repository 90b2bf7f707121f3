package io.basalt.broker.assignment;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.basalt.broker.protocol.MessageQueue;

/**
 * The broker-side rebalance of QUERY_ASSIGNMENT (RocketMQ's {@code QueryAssignmentProcessor} with the clients'
 * {@code AllocateMessageQueueAveragely} and {@code AllocateMessageQueueAveragelyByCircle}): which queues of a topic
 * one client of a CLUSTERING group reads. Queues are sorted (topic, broker name, queue id) and client ids as
 * strings first, so that every client computes its share of the same order. Stateless.
 */
public final class QueueAllocation {
    /** The strategy names the broker allocates with (RocketMQ's broker knows these two). */
    public static final List<String> STRATEGIES = List.of(Strategy.AVG.name(), Strategy.AVG_BY_CIRCLE.name());

    public enum Strategy {
        /** Contiguous blocks, the first {@code queues mod clients} clients one queue more. */
        AVG,
        /** Queue i to client {@code i mod clients}. */
        AVG_BY_CIRCLE;

        public static Optional<Strategy> named(String name) {
            for (Strategy s : values()) {
                if (s.name().equals(name)) {
                    return Optional.of(s);
                }
            }
            return Optional.empty();
        }
    }

    private static final Comparator<MessageQueue> QUEUE_ORDER = Comparator.comparing(MessageQueue::topic)
        .thenComparing(MessageQueue::brokerName).thenComparingInt(MessageQueue::queueId);

    private QueueAllocation() {
    }

    /** The queues in RocketMQ's {@code MessageQueue.compareTo} order. */
    public static List<MessageQueue> sorted(Iterable<MessageQueue> queues) {
        List<MessageQueue> all = new ArrayList<>();
        queues.forEach(all::add);
        all.sort(QUEUE_ORDER);
        return all;
    }

    /**
     * PULL: {@code clientId}'s share by {@code strategy}; none when the client is not in {@code clientIds}.
     *
     * @param queues    the topic's readable queues, sorted
     * @param clientIds the group's client ids, sorted
     */
    public static List<MessageQueue> pull(Strategy strategy, String clientId, List<MessageQueue> queues,
                                          List<String> clientIds) {
        int index = clientIds.indexOf(clientId);
        if (index < 0 || queues.isEmpty()) {
            return List.of();
        }
        List<MessageQueue> result = new ArrayList<>();
        int n = queues.size();
        int clients = clientIds.size();
        if (strategy == Strategy.AVG_BY_CIRCLE) {
            for (int i = index; i < n; i += clients) {
                result.add(queues.get(i));
            }
            return result;
        }
        int mod = n % clients;
        int averageSize = n <= clients ? 1 : (mod > 0 && index < mod ? n / clients + 1 : n / clients);
        int startIndex = mod > 0 && index < mod ? index * averageSize : index * averageSize + mod;
        int range = Math.min(averageSize, n - startIndex);
        for (int i = 0; i < range; i++) {
            result.add(queues.get((startIndex + i) % n));
        }
        return result;
    }

    /**
     * POP: with {@code popShareQueueNum ≤ 0} or {@code ≥ clients − 1}, every client pops every queue of each broker
     * (one queue with id −1 per broker); otherwise the client's own PULL share plus the shares of the next
     * {@code popShareQueueNum} clients in the sorted list, and with more clients than queues client i gets queue
     * {@code i mod queues}, so that every client has one.
     */
    public static Set<MessageQueue> pop(Strategy strategy, String clientId, List<MessageQueue> queues,
                                        List<String> clientIds, int popShareQueueNum) {
        Set<MessageQueue> result = new LinkedHashSet<>();
        if (popShareQueueNum <= 0 || popShareQueueNum >= clientIds.size() - 1) {
            for (MessageQueue q : queues) {
                result.add(new MessageQueue(q.topic(), q.brokerName(), -1));
            }
            return result;
        }
        int index = clientIds.indexOf(clientId);
        if (index < 0 || queues.isEmpty()) {
            return result;
        }
        if (clientIds.size() > queues.size()) {
            result.add(queues.get(index % queues.size()));
            return result;
        }
        result.addAll(pull(strategy, clientId, queues, clientIds));
        for (int i = 1; i <= popShareQueueNum; i++) {
            result.addAll(pull(strategy, clientIds.get((index + i) % clientIds.size()), queues, clientIds));
        }
        return result;
    }
}
