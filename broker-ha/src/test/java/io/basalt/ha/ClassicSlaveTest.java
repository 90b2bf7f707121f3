package io.basalt.ha;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.ha.slave.HAClient;
import io.basalt.ha.slave.MasterLocator;
import io.basalt.store.FlushDiskType;

/**
 * A Basalt slave finds its master through a {@link MasterLocator} (the NameServers' answers) and speaks the
 * protocol the master says it speaks; here a Basalt master's classic side plays the RocketMQ master, and a raw
 * socket the RocketMQ master that sends a frame at the wrong offset.
 */
class ClassicSlaveTest {
    @TempDir
    Path dir;

    /** A locator whose HA address a test sets, answering {@code spoken} to GET_HA_PROTOCOLS. */
    private static final class TestLocator implements MasterLocator {
        final AtomicReference<InetSocketAddress> haAddress = new AtomicReference<>();
        final AtomicInteger asked = new AtomicInteger();
        final Set<ReplicaProtocol> spoken;

        TestLocator(Set<ReplicaProtocol> spoken) {
            this.spoken = spoken;
        }

        @Override
        public boolean locates() {
            return true;
        }

        @Override
        public Optional<String> masterAddr() {
            return Optional.ofNullable(haAddress.get()).map(a -> "127.0.0.1:10911");
        }

        @Override
        public Optional<InetSocketAddress> haServerAddr() {
            asked.incrementAndGet();
            return Optional.ofNullable(haAddress.get());
        }

        @Override
        public CompletableFuture<Set<ReplicaProtocol>> protocols(String masterAddr) {
            return CompletableFuture.completedFuture(spoken);
        }
    }

    @Test
    void aSlaveWithoutAnAddressWaitsThenReplicatesInTheClassicProtocol() throws Exception {
        TestLocator locator = new TestLocator(EnumSet.of(ReplicaProtocol.CLASSIC));
        try (HANode master = HANode.open(dir.resolve("m"), FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), false);
             HANode slave = HANode.open(dir.resolve("s"), FlushDiskType.ASYNC_FLUSH).asSlave(HANode.config(), null, locator)) {
            master.putMany("T", 0, 200, 500);
            // no address named: the slave keeps asking and connects nowhere
            await().atMost(ofSeconds(10)).until(() -> locator.asked.get() >= 3);
            assertEquals(HAClient.State.READY, slave.slave.state());
            assertTrue(master.master.slaves().isEmpty());
            assertEquals(0, slave.store.getMaxPhyOffset());

            locator.haAddress.set(master.haAddress());
            long max = master.store.getMaxPhyOffset();
            await().atMost(ofSeconds(20)).until(() -> slave.store.getMaxPhyOffset() == max);
            assertArrayEquals(master.commitLogBytes(0, max), slave.commitLogBytes(0, max));
            assertEquals("CLASSIC", slave.slave.protocol());
            await().atMost(ofSeconds(10)).until(() -> !master.master.slaves().isEmpty()
                && master.master.slaves().get(0).ackOffset() == max);
            assertEquals("CLASSIC", master.master.slaves().get(0).protocol());
            // the ConsumeQueues are built from the replicated bytes
            await().atMost(ofSeconds(10)).until(() -> slave.store.getReputFromOffset() == max);
        }
    }

    @Test
    void aMasterThatSpeaksBasaltIsSpokenBasalt() throws Exception {
        TestLocator locator = new TestLocator(ReplicaProtocol.SPOKEN);
        try (HANode master = HANode.open(dir.resolve("m"), FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), false);
             HANode slave = HANode.open(dir.resolve("s"), FlushDiskType.ASYNC_FLUSH).asSlave(HANode.config(), null, locator)) {
            locator.haAddress.set(master.haAddress());
            master.putMany("T", 0, 20, 500);
            long max = master.store.getMaxPhyOffset();
            await().atMost(ofSeconds(20)).until(() -> slave.store.getMaxPhyOffset() == max);
            assertEquals("BASALT", slave.slave.protocol());
            await().atMost(ofSeconds(10)).until(() -> !master.master.slaves().isEmpty());
            assertEquals("BASALT", master.master.slaves().get(0).protocol());
            assertEquals(1, master.master.slaves().get(0).brokerId());
        }
    }

    @Test
    void aFrameThatDoesNotStartAtTheSlavesEndClosesTheConnection() throws Exception {
        TestLocator locator = new TestLocator(EnumSet.of(ReplicaProtocol.CLASSIC));
        try (ServerSocket fakeMaster = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
             HANode slave = HANode.open(dir.resolve("s"), FlushDiskType.ASYNC_FLUSH)) {
            fakeMaster.setSoTimeout(20_000);
            slave.putMany("T", 0, 5, 200);
            long max = slave.store.getMaxPhyOffset();
            locator.haAddress.set(new InetSocketAddress("127.0.0.1", fakeMaster.getLocalPort()));
            slave.asSlave(HANode.config(), null, locator);
            try (Socket s = fakeMaster.accept()) {
                s.setSoTimeout(20_000);
                DataInputStream in = new DataInputStream(s.getInputStream());
                assertEquals(max, in.readLong(), "the first report is the slave's CommitLog end");
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                out.writeLong(max + 100);
                out.writeInt(16);
                out.write(new byte[16]);
                out.flush();
                // the slave closes the connection (it may send a report first)
                while (in.read() >= 0) {
                    // drain
                }
            }
            assertEquals(max, slave.store.getMaxPhyOffset(), "nothing was appended");
            // and reconnects, reporting its end again
            try (Socket again = fakeMaster.accept()) {
                again.setSoTimeout(20_000);
                assertEquals(max, new DataInputStream(again.getInputStream()).readLong());
            }
        }
    }
}
