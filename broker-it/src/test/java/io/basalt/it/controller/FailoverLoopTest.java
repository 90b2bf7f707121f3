package io.basalt.it.controller;

import static java.time.Duration.ofSeconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerProcess;
import io.basalt.it.RocketMqNameServer;

/**
 * Failover without an operator: three Basalt brokers of one set under a three-node official RocketMQ 5.2.0
 * Controller, {@code SYNC_FLUSH}, {@code allAckInSyncStateSet=true}, load from the official producer. Round after
 * round the master is killed with {@code kill -9}; the Controller elects another, the producer goes on being
 * acknowledged by it, and the killed broker comes back on its store as a replica. At the end every acknowledged
 * message is in the topic exactly once, read back from the last master. Rounds: system property
 * {@code basalt.reliability.controllerFailovers} (10).
 */
@LeakCheckExtension.AllowThreads(value = RocketMqNameServer.LEFT_RUNNING,
    because = "the official 5.2.0 NettyRemotingServer.shutdown() leaves its scheduler thread running")
class FailoverLoopTest {
    private static final String TOPIC = "FailoverLoopTopic";
    private static final int ROUNDS = Integer.getInteger("basalt.reliability.controllerFailovers", 10);

    @TempDir
    Path dir;

    @Test
    void everyAcknowledgedMessageSurvivesRepeatedKillsOfTheMaster() throws Exception {
        try (RocketMqNameServer nameServer = RocketMqNameServer.start(dir.resolve("namesrv"));
             RocketMqControllerProcess controller = RocketMqControllerProcess.startCluster(dir.resolve("controller"),
                 BrokerSet.CONTROLLER_CONF);
             BrokerSet set = new BrokerSet(nameServer.address(), controller)) {
            String namesrv = nameServer.address();
            List<BrokerProcess> brokers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                brokers.add(set.add(dir.resolve("b" + i), controller.controllerAddr(), namesrv, Map.of()));
            }
            brokers.get(0).start();
            set.awaitSet(1, ofSeconds(60));
            brokers.get(1).start();
            brokers.get(2).start();
            BrokerSet.Replicas replicas = set.awaitSet(3, ofSeconds(90));
            set.createTopic(replicas.master(), TOPIC, 4);

            List<String> history = new ArrayList<>();
            try (AckLedger ledger = new AckLedger(namesrv, TOPIC, 4)) {
                await().atMost(ofSeconds(60)).until(() -> ledger.ackedCount() >= 100);
                for (int round = 1; round <= ROUNDS; round++) {
                    replicas = set.awaitSet(3, ofSeconds(90));
                    long before = ledger.ackedCount();
                    await().atMost(ofSeconds(30)).until(() -> ledger.ackedCount() >= before + 50);
                    String old = replicas.master();
                    int oldEpoch = replicas.masterEpoch();
                    BrokerProcess victim = set.at(old);
                    victim.killHard();
                    long dead = System.nanoTime();
                    BrokerSet.Replicas elected = await().atMost(ofSeconds(60)).pollInterval(java.time.Duration.ofMillis(100))
                        .until(set::replicas, r -> r != null && r.hasMaster() && !r.master().equals(old)
                            && r.masterEpoch() > oldEpoch);
                    // the producer goes on: acknowledged by the new master, and by no other broker after the kill
                    await().atMost(ofSeconds(60)).until(() -> !ledger.ackedAfter(dead).isEmpty());
                    assertEquals(List.of(elected.master()), ledger.ackedAfter(dead).stream().map(AckLedger.Ack::broker)
                        .distinct().toList(), "who acknowledged sends after " + old + " was killed");
                    history.add("round " + round + ": " + old + " (epoch " + oldEpoch + ") -> " + elected.master()
                        + " (epoch " + elected.masterEpoch() + ")");
                    victim.start();
                }
                ledger.stop();
                replicas = set.awaitSet(3, ofSeconds(90));

                Map<Long, AckLedger.Ack> acked = ledger.acked();
                Map<Long, Integer> copies = TopicReadBack.copies(namesrv, TOPIC, acked.size());
                List<Long> missing = acked.keySet().stream().filter(seq -> !copies.containsKey(seq)).sorted().toList();
                Map<Long, Integer> duplicated = copies.entrySet().stream().filter(e -> e.getValue() > 1)
                    .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
                String context = String.join("; ", history) + "; " + acked.size() + " acknowledged, "
                    + ledger.failed() + " failed, final master " + replicas.master();
                assertTrue(missing.isEmpty(), missing.size() + " acknowledged but not on the final master (first "
                    + missing.stream().limit(20).toList() + "): " + context);
                assertTrue(duplicated.isEmpty(), duplicated.size() + " stored more than once (the producer never resends): "
                    + duplicated.entrySet().stream().limit(20).toList() + ": " + context);
                System.out.println("FailoverLoopTest: " + context);
            }
        }
    }
}
