package io.basalt.ha;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.store.FlushDiskType;

/**
 * {@code haAuthSecret}: Basalt brokers of a group prove a shared secret to each other before replicating; a slave
 * without it (a RocketMQ slave included) or with another one never gets a byte, a replayed or stale proof is refused,
 * and a slave does not follow a master that cannot prove it.
 */
class HAAuthTest {
    private static final String SECRET = "a-group-secret-of-24-chr";

    @TempDir
    Path dir;

    private static HAConfig withSecret(String secret) {
        return HANode.config().toBuilder().haAuthSecret(secret).build();
    }

    @Test
    void proofsAreCheckedForSecretClockAndReplay() {
        AtomicLong now = new AtomicLong(1_700_000_000_000L);
        HAAuth master = new HAAuth(SECRET, now::get);
        HAAuth slave = new HAAuth(SECRET, now::get);
        HAAuth stranger = new HAAuth("another-secret-of-24-chrs", now::get);
        byte[] nonce = HAAuth.newNonce();
        byte[] proof = slave.slaveProof(nonce, now.get());
        assertNull(master.checkSlaveProof(proof));
        assertTrue(master.checkSlaveProof(proof).contains("replayed"), "the same proof twice");
        assertTrue(master.checkSlaveProof(stranger.slaveProof(HAAuth.newNonce(), now.get())).contains("not of this"));
        assertTrue(master.checkSlaveProof(slave.slaveProof(HAAuth.newNonce(), now.get() - HAAuth.MAX_SKEW_MS - 1))
            .contains("away from this master's clock"));
        assertEquals(new String(slave.masterProof(nonce), java.nio.charset.StandardCharsets.ISO_8859_1),
            new String(master.masterProof(nonce), java.nio.charset.StandardCharsets.ISO_8859_1));
    }

    @Test
    void slavesWithTheSecretReplicateAndOthersGetNothing() throws Exception {
        try (HANode master = HANode.open(dir.resolve("m"), FlushDiskType.ASYNC_FLUSH).asMaster(withSecret(SECRET), false)) {
            master.putMany("T", 0, 200, 512);
            try (HANode good = HANode.open(dir.resolve("good"), FlushDiskType.ASYNC_FLUSH)
                .asSlave(withSecret(SECRET), master.haAddress())) {
                await().atMost(ofSeconds(30)).until(() -> good.store.getMaxPhyOffset() == master.store.getMaxPhyOffset());
            }
            try (HANode none = HANode.open(dir.resolve("none"), FlushDiskType.ASYNC_FLUSH)
                     .asSlave(HANode.config(), master.haAddress());
                 HANode other = HANode.open(dir.resolve("other"), FlushDiskType.ASYNC_FLUSH)
                     .asSlave(withSecret("another-secret-of-24-chrs"), master.haAddress())) {
                // a few reconnect rounds of both: nothing arrives
                await().during(ofSeconds(3)).atMost(ofSeconds(5)).until(() -> none.store.getMaxPhyOffset() == 0
                    && other.store.getMaxPhyOffset() == 0);
            }
            // what a RocketMQ classic slave sends first (an offset report): closed without an answer
            try (Socket raw = new Socket()) {
                raw.connect(master.haAddress(), 5000);
                raw.setSoTimeout(5000);
                OutputStream out = raw.getOutputStream();
                out.write(new byte[] {0, 0, 0, 0, 0, 0, 0, 0});
                out.flush();
                InputStream in = raw.getInputStream();
                assertEquals(-1, in.read(), "closed, nothing streamed");
            }
        }
    }

    @Test
    void aSlaveWithTheSecretDoesNotFollowAMasterWithout() throws Exception {
        try (HANode master = HANode.open(dir.resolve("m"), FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), false);
             HANode slave = HANode.open(dir.resolve("s"), FlushDiskType.ASYNC_FLUSH)
                 .asSlave(withSecret(SECRET), master.haAddress())) {
            master.putMany("T", 0, 50, 512);
            await().during(ofSeconds(3)).atMost(ofSeconds(5)).until(() -> slave.store.getMaxPhyOffset() == 0);
            assertNotNull(master.master);
        }
    }

    @Test
    void theSecretIsNeverPrinted() {
        assertTrue(!withSecret(SECRET).toString().contains(SECRET));
        assertTrue(withSecret(SECRET).toString().contains("haAuthSecret=<hidden>"));
    }

    @Test
    void theLinkSpeaksTlsWithTheProofInsideIt() throws Exception {
        io.basalt.remoting.tls.TlsSettings tls = io.basalt.remoting.tls.TlsSettings.of(java.util.Map.of());
        io.basalt.ha.master.HAListener listener = new io.basalt.ha.master.HAListener();
        listener.setTls(io.basalt.remoting.tls.TlsMode.ENFORCING, tls.serverContext());
        try (HANode master = HANode.open(dir.resolve("m"), FlushDiskType.ASYNC_FLUSH);
             HANode slave = HANode.open(dir.resolve("s"), FlushDiskType.ASYNC_FLUSH)) {
            master.master = new io.basalt.ha.master.HAService(master.store, master.epochs, withSecret(SECRET),
                new Peer(0, "127.0.0.1:10911"), false, listener);
            master.master.start();
            master.putMany("T", 0, 100, 512);
            slave.slave = new io.basalt.ha.slave.HAClient(slave.store, slave.epochs, withSecret(SECRET).toBuilder()
                .haTlsEnable(true).build(), new Peer(1, "127.0.0.1:10921"), master.haAddress());
            slave.slave.useTls(tls.clientContext());
            slave.slave.start();
            await().atMost(ofSeconds(30)).until(() -> slave.store.getMaxPhyOffset() == master.store.getMaxPhyOffset());
            // a plaintext slave is refused by the enforcing port, before its first byte is read
            try (HANode plain = HANode.open(dir.resolve("p"), FlushDiskType.ASYNC_FLUSH)
                .asSlave(withSecret(SECRET), master.haAddress())) {
                await().during(ofSeconds(2)).atMost(ofSeconds(4)).until(() -> plain.store.getMaxPhyOffset() == 0);
            }
        } finally {
            listener.close();
        }
    }
}
