package io.basalt.broker.assignment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import io.basalt.broker.assignment.QueueAllocation.Strategy;
import io.basalt.broker.protocol.MessageQueue;
import org.junit.jupiter.api.Test;

/** The broker-side allocation, checked against the shares RocketMQ's AVG and AVG_BY_CIRCLE strategies give. */
class QueueAllocationTest {
    private static List<MessageQueue> queues(String broker, int n) {
        return IntStream.range(0, n).mapToObj(i -> new MessageQueue("T", broker, i)).toList();
    }

    private static List<Integer> ids(List<MessageQueue> queues) {
        return queues.stream().map(MessageQueue::queueId).toList();
    }

    @Test
    void avgGivesContiguousBlocksAndTheFirstClientsOneMore() {
        List<MessageQueue> eight = queues("b", 8);
        List<String> clients = List.of("c1", "c2", "c3");
        assertEquals(List.of(0, 1, 2), ids(QueueAllocation.pull(Strategy.AVG, "c1", eight, clients)));
        assertEquals(List.of(3, 4, 5), ids(QueueAllocation.pull(Strategy.AVG, "c2", eight, clients)));
        assertEquals(List.of(6, 7), ids(QueueAllocation.pull(Strategy.AVG, "c3", eight, clients)));
    }

    @Test
    void avgByCircleDealsQueuesRoundTheClients() {
        List<MessageQueue> eight = queues("b", 8);
        List<String> clients = List.of("c1", "c2", "c3");
        assertEquals(List.of(0, 3, 6), ids(QueueAllocation.pull(Strategy.AVG_BY_CIRCLE, "c1", eight, clients)));
        assertEquals(List.of(1, 4, 7), ids(QueueAllocation.pull(Strategy.AVG_BY_CIRCLE, "c2", eight, clients)));
        assertEquals(List.of(2, 5), ids(QueueAllocation.pull(Strategy.AVG_BY_CIRCLE, "c3", eight, clients)));
    }

    @Test
    void everyQueueGoesToExactlyOneClientWhateverTheCounts() {
        for (Strategy strategy : Strategy.values()) {
            for (int n = 1; n <= 9; n++) {
                for (int c = 1; c <= 5; c++) {
                    List<MessageQueue> all = queues("b", n);
                    List<String> clients = IntStream.range(0, c).mapToObj(i -> "c" + i).toList();
                    List<MessageQueue> union = new ArrayList<>();
                    clients.forEach(id -> union.addAll(QueueAllocation.pull(strategy, id, all, clients)));
                    assertEquals(n, union.size(), strategy + " " + n + " queues " + c + " clients");
                    assertEquals(Set.copyOf(all), new HashSet<>(union));
                }
            }
        }
    }

    @Test
    void moreClientsThanQueuesLeavesTheLastClientsWithoutAQueueInPull() {
        List<MessageQueue> two = queues("b", 2);
        List<String> clients = List.of("c1", "c2", "c3");
        assertEquals(List.of(0), ids(QueueAllocation.pull(Strategy.AVG, "c1", two, clients)));
        assertEquals(List.of(1), ids(QueueAllocation.pull(Strategy.AVG, "c2", two, clients)));
        assertEquals(List.of(), ids(QueueAllocation.pull(Strategy.AVG, "c3", two, clients)));
    }

    @Test
    void aClientNotInTheGroupGetsNothing() {
        assertEquals(List.of(), QueueAllocation.pull(Strategy.AVG, "stranger", queues("b", 4), List.of("c1")));
    }

    @Test
    void queuesAreSortedByTopicBrokerAndId() {
        List<MessageQueue> mixed = List.of(new MessageQueue("T", "b2", 0), new MessageQueue("T", "b1", 1),
            new MessageQueue("T", "b1", 0));
        assertEquals(List.of(new MessageQueue("T", "b1", 0), new MessageQueue("T", "b1", 1), new MessageQueue("T", "b2", 0)),
            QueueAllocation.sorted(mixed));
    }

    @Test
    void popWithoutSharingGivesEveryClientOneWholeBrokerQueuePerBroker() {
        List<MessageQueue> all = QueueAllocation.sorted(new ArrayList<>(List.of(new MessageQueue("T", "a", 0),
            new MessageQueue("T", "a", 1), new MessageQueue("T", "b", 0))));
        for (int share : new int[] {-1, 0, 2, 5}) {
            assertEquals(Set.of(new MessageQueue("T", "a", -1), new MessageQueue("T", "b", -1)),
                QueueAllocation.pop(Strategy.AVG, "c2", all, List.of("c1", "c2", "c3"), share), "share " + share);
        }
    }

    @Test
    void popWithSharesAddsTheNextClientsQueues() {
        List<MessageQueue> eight = queues("b", 8);
        List<String> clients = List.of("c1", "c2", "c3", "c4");
        // AVG: c1 0,1  c2 2,3  c3 4,5  c4 6,7; share 1 adds the next client's block, wrapping around
        assertEquals(Set.copyOf(queues("b", 4)), QueueAllocation.pop(Strategy.AVG, "c1", eight, clients, 1));
        assertEquals(Set.of(eight.get(6), eight.get(7), eight.get(0), eight.get(1)),
            QueueAllocation.pop(Strategy.AVG, "c4", eight, clients, 1));
    }

    @Test
    void popWithSharesAndMoreClientsThanQueuesGivesEachClientOneQueue() {
        List<MessageQueue> two = queues("b", 2);
        List<String> clients = List.of("c1", "c2", "c3", "c4", "c5");
        assertEquals(Set.of(two.get(0)), QueueAllocation.pop(Strategy.AVG, "c1", two, clients, 1));
        assertEquals(Set.of(two.get(1)), QueueAllocation.pop(Strategy.AVG, "c2", two, clients, 1));
        assertEquals(Set.of(two.get(0)), QueueAllocation.pop(Strategy.AVG, "c5", two, clients, 1));
        assertTrue(QueueAllocation.pop(Strategy.AVG, "stranger", two, clients, 1).isEmpty());
    }
}
