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

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.store.FlushDiskType;
import io.basalt.store.PutMessageResult;
import io.basalt.store.PutMessageStatus;

/** Role switch without restart: a slave becomes master under a new epoch; the old master follows it. */
class PromotionTest {
    @TempDir
    Path dir;

    @Test
    void promotedSlaveAcceptsWritesAndContinuesEachQueue() throws Exception {
        HANode a = HANode.open(dir.resolve("a"), FlushDiskType.ASYNC_FLUSH);
        HANode b = HANode.open(dir.resolve("b"), FlushDiskType.ASYNC_FLUSH);
        Replication ra = new Replication(a.store, a.epochs, HANode.config(), new Peer(0, "127.0.0.1:10911"), BrokerRole.SYNC_MASTER, null);
        Replication rb = null;
        Replication ra2 = null;
        try {
            ra.start();
            rb = new Replication(b.store, b.epochs, HANode.config(), new Peer(1, "127.0.0.1:10921"), BrokerRole.SLAVE,
                new InetSocketAddress("127.0.0.1", ra.haListenPort()));
            rb.start();
            assertTrue(ra.acceptsWrites());
            assertFalse(rb.acceptsWrites(), "a slave refuses producers");
            await().atMost(ofSeconds(10)).until(() -> ra.slaves().size() == 1);
            for (PutMessageResult r : a.putMany("TopicP", 0, 400, 512)) {
                assertEquals(PutMessageStatus.PUT_OK, r.status(), "SYNC_MASTER with its slave in sync");
            }
            assertEquals(a.store.getMaxPhyOffset(), b.store.getMaxPhyOffset(), "every acknowledged byte is on the slave");
            assertTrue(ra.runtimeInfo().containsKey("haSlave0LagBytes"));
            assertEquals(java.util.Map.of(0L, "127.0.0.1:10911", 1L, "127.0.0.1:10921"), ra.brokerAddrs(),
                "the master's route lists itself as 0 and its slave");
            assertEquals(java.util.Map.of(0L, "127.0.0.1:10911", 1L, "127.0.0.1:10921"), rb.brokerAddrs(),
                "the slave lists the master it streams from");
            assertTrue(ra.isSlaveInSync(1), "the master sees slave 1 in sync");
            assertTrue(rb.masterStreaming());

            // the master dies; the operator promotes the slave, which still follows epoch 1
            ra.shutdown();
            a.store.shutdown();
            Replication promoted = rb;
            assertThrows(IllegalStateException.class, () -> promoted.promote(BrokerRole.ASYNC_MASTER, 7));
            assertEquals(2, rb.promote(BrokerRole.ASYNC_MASTER, 1));
            assertTrue(rb.acceptsWrites());
            assertEquals(java.util.Map.of(0L, "127.0.0.1:10921"), rb.brokerAddrs(), "promoted: listed as master");
            PutMessageResult next = b.put("TopicP", 0, 512);
            assertEquals(PutMessageStatus.PUT_OK, next.status());
            assertEquals(100, next.appendResult().queueOffset(), "queue 0 continues after the 100 replicated entries");
            assertThrows(IllegalStateException.class, () -> promoted.promote(BrokerRole.ASYNC_MASTER, 2));

            // the old master comes back as a slave of the new one
            HANode a2 = HANode.open(dir.resolve("a"), FlushDiskType.ASYNC_FLUSH);
            try {
                ra2 = new Replication(a2.store, a2.epochs, HANode.config(), new Peer(1, "127.0.0.1:10911"), BrokerRole.SLAVE,
                    new InetSocketAddress("127.0.0.1", rb.haListenPort()));
                ra2.start();
                await().atMost(ofSeconds(30)).until(() -> a2.store.getMaxPhyOffset() == b.store.getMaxPhyOffset());
                assertEquals(2, a2.epochs.lastEpoch());
                long max = b.store.getMaxPhyOffset();
                assertArrayEquals(b.commitLogBytes(0, max), a2.commitLogBytes(0, max));
            } finally {
                if (ra2 != null) {
                    ra2.shutdown();
                }
                a2.store.shutdown();
            }
        } finally {
            if (rb != null) {
                rb.shutdown();
            }
            ra.shutdown();
            a.store.shutdown();
            b.store.shutdown();
        }
    }
    @Test
    void aMasterStillAliveAtPromotionIsToldToStepDownAndFencesItself() throws Exception {
        HANode a = HANode.open(dir.resolve("a"), FlushDiskType.ASYNC_FLUSH);
        HANode b = HANode.open(dir.resolve("b"), FlushDiskType.ASYNC_FLUSH);
        Replication ra = new Replication(a.store, a.epochs, HANode.config(), new Peer(0, "127.0.0.1:10911"), BrokerRole.ASYNC_MASTER, null);
        Replication rb = null;
        java.util.List<String> fenced = new java.util.concurrent.CopyOnWriteArrayList<>();
        ra.onFenced(fenced::add);
        try {
            ra.start();
            rb = new Replication(b.store, b.epochs, HANode.config(), new Peer(1, "127.0.0.1:10921"), BrokerRole.SLAVE,
                new InetSocketAddress("127.0.0.1", ra.haListenPort()));
            rb.start();
            await().atMost(ofSeconds(10)).until(() -> ra.slaves().size() == 1);
            assertEquals(PutMessageStatus.PUT_OK, a.put("TopicS", 0, 256).status());

            // a partition, not a crash: the operator promotes the slave while the old master still runs
            assertEquals(2, rb.promote(BrokerRole.ASYNC_MASTER, 1));
            assertTrue(rb.acceptsWrites());
            assertFalse(ra.acceptsWrites(), "the old master heard of epoch 2 at the promotion and refuses writes");
            assertEquals(1, fenced.size(), "the broker hears of the fence once");
            assertTrue(fenced.get(0).contains("epoch 2"), fenced.get(0));
            assertEquals("true", ra.runtimeInfo().get("haFenced"));
        } finally {
            if (rb != null) {
                rb.shutdown();
            }
            ra.shutdown();
            a.store.shutdown();
            b.store.shutdown();
        }
    }
}
