package io.basalt.ha;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.store.FlushDiskType;
import io.basalt.store.PutMessageResult;
import io.basalt.store.PutMessageStatus;

/**
 * Controller mode's role changes without a restart: a broker starts fenced, takes the roles and epochs it is
 * given, switches master → slave and slave → master, and a deposed master's unreplicated tail is cut.
 */
class ControllerRoleChangeTest {
    private static final int ROLE_CHANGE_ROUNDS = 200;

    @TempDir
    Path dir;

    @Test
    void rolesSwitchBothWaysWithTheControllersEpochsAndTheDeposedTailIsCut() throws Exception {
        try (HANode a = HANode.open(dir.resolve("a"), FlushDiskType.ASYNC_FLUSH);
             HANode b = HANode.open(dir.resolve("b"), FlushDiskType.ASYNC_FLUSH)) {
            Replication ra = Replication.controlled(a.store, a.epochs, HANode.config(), new Peer(-1, "127.0.0.1:10911"));
            Replication rb = Replication.controlled(b.store, b.epochs, HANode.config(), new Peer(-1, "127.0.0.1:10921"));
            try {
                ra.start();
                rb.start();
                assertFalse(ra.roleAssigned());
                assertFalse(ra.acceptsWrites(), "fenced until the controller gives a role");
                assertEquals(-1, ra.haListenPort(), "no HA endpoint while fenced");

                assertTrue(ra.becomeMaster(1, 1));
                assertFalse(ra.becomeMaster(1, 1), "the same epoch again changes nothing");
                assertEquals(BrokerRole.SYNC_MASTER, ra.role());
                assertEquals(List.of(new EpochFile.Entry(1, 0)), a.epochs.entries(), "the controller's epoch, not 0 + 1");
                assertTrue(rb.becomeSlave(1, 2, new InetSocketAddress("127.0.0.1", ra.haListenPort())));
                assertTrue(ra.acceptsWrites());
                assertFalse(rb.acceptsWrites());
                for (PutMessageResult r : a.putMany("T", 0, 200, 512)) {
                    assertEquals(PutMessageStatus.PUT_OK, r.status(), "no replica wait by default (inSyncReplicas=1)");
                }
                await().atMost(ofSeconds(20)).until(() -> b.store.getMaxPhyOffset() == a.store.getMaxPhyOffset());
                long replicated = a.store.getMaxPhyOffset();

                // the controller loses the master: it suspends writes, then resumes when confirmed
                ra.suspendWrites("no controller for 10000 ms");
                assertFalse(ra.acceptsWrites());
                ra.resumeWrites();
                assertTrue(ra.acceptsWrites());

                // a partitioned master writes a tail nobody gets, while the controller elects b with epoch 3
                rb.becomeSlave(1, 2, null);
                a.putMany("T", 200, 20, 512);
                assertTrue(a.store.getMaxPhyOffset() > replicated);
                assertTrue(rb.becomeMaster(3, 2));
                assertTrue(rb.acceptsWrites());
                assertEquals(new EpochFile.Entry(3, replicated), b.epochs.entries().get(b.epochs.entries().size() - 1));
                PutMessageResult next = b.put("T", 0, 512);
                assertEquals(PutMessageStatus.PUT_OK, next.status());
                assertEquals(50, next.appendResult().queueOffset(), "queue 0 goes on after the 50 replicated entries");
                b.putMany("T", 1, 30, 512);

                // the deposed master is told to follow b: its HA connections close, its tail is cut
                assertTrue(ra.becomeSlave(3, 1, new InetSocketAddress("127.0.0.1", rb.haListenPort())));
                assertFalse(ra.acceptsWrites());
                assertEquals(-1, ra.haListenPort());
                await().atMost(ofSeconds(20)).until(() -> a.store.getMaxPhyOffset() == b.store.getMaxPhyOffset());
                assertEquals(3, a.epochs.lastEpoch());
                long max = b.store.getMaxPhyOffset();
                assertArrayEquals(b.commitLogBytes(0, max), a.commitLogBytes(0, max), "a holds exactly b's log");

                // an epoch older than the store's is refused
                assertThrows(IllegalStateException.class, () -> ra.becomeMaster(2, 1));
            } finally {
                ra.shutdown();
                rb.shutdown();
            }
        }
    }

    @Test
    void aSuspendedMasterToldToFollowAnotherNeverAcceptsWritesOnTheWayAndItsStoreRefusesPutsAfter() throws Exception {
        try (HANode a = HANode.open(dir.resolve("a"), FlushDiskType.ASYNC_FLUSH)) {
            Replication ra = Replication.controlled(a.store, a.epochs, HANode.config(), new Peer(-1, "127.0.0.1:10911"));
            try {
                ra.start();
                assertTrue(ra.becomeMaster(1, 1));
                int haPort = ra.haListenPort();
                assertEquals(PutMessageStatus.PUT_OK, a.put("T", 0, 512).status());
                ra.suspendWrites("no controller for 3000 ms");

                // a send processor asks acceptsWrites() all along each role change; a round is odd from the
                // suspension until becomeSlave returns, and only answers read wholly inside one odd round count
                AtomicBoolean watching = new AtomicBoolean(true);
                AtomicLong round = new AtomicLong(1);
                AtomicInteger accepted = new AtomicInteger();
                Thread watcher = new Thread(() -> {
                    while (watching.get()) {
                        long before = round.get();
                        boolean accepts = ra.acceptsWrites();
                        if (accepts && before % 2 == 1 && round.get() == before) {
                            accepted.incrementAndGet();
                        }
                    }
                }, "acceptsWrites-watcher");
                watcher.start();
                try {
                    assertTrue(ra.becomeSlave(2, 1, null));
                    round.incrementAndGet();
                    // the window is a few instructions wide: go through the change many more times
                    for (long epoch = 3; epoch < 3 + ROLE_CHANGE_ROUNDS * 2; epoch += 2) {
                        assertTrue(ra.becomeMaster(epoch, 1));
                        ra.suspendWrites("no controller for 3000 ms");
                        round.incrementAndGet();
                        assertTrue(ra.becomeSlave(epoch + 1, 1, null));
                        round.incrementAndGet();
                    }
                } finally {
                    watching.set(false);
                    watcher.join();
                }
                assertEquals(0, accepted.get(), "times a suspended master, becoming a slave, said it accepted writes");

                // the HA port stays bound while this broker is a slave, and closes every connection at once
                try (java.net.Socket probe = new java.net.Socket("127.0.0.1", haPort)) {
                    probe.setSoTimeout(10_000);
                    assertEquals(-1, probe.getInputStream().read(), "a slave's HA port closes the connection");
                }

                // a send that passed the role check just before the change reaches a store with no master endpoint:
                // refused, not acknowledged with nobody to wait for its replicas
                long end = a.store.getMaxPhyOffset();
                assertEquals(PutMessageStatus.SERVICE_NOT_AVAILABLE, a.put("T", 0, 512).status());
                assertEquals(end, a.store.getMaxPhyOffset());

                // master again: puts are taken, on the HA threads of the first term (a promotion creates none)
                List<String> haThreads = haThreadNames();
                assertTrue(ra.becomeMaster(3 + ROLE_CHANGE_ROUNDS * 2, 1));
                assertEquals(PutMessageStatus.PUT_OK, a.put("T", 0, 512).status());
                assertEquals(haThreads, haThreadNames());
                assertEquals(haPort, ra.haListenPort(), "the port bound at start, not a new one");
                assertEquals(3, haThreads.size(), "one acceptor and two connection loops: " + haThreads);
            } finally {
                ra.shutdown();
            }
        }
    }

    private static List<String> haThreadNames() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
            .filter(n -> n.startsWith("HAAcceptService") || n.startsWith("HAConnection_")).sorted().toList();
    }
}
