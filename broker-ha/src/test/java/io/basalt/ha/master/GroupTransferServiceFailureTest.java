package io.basalt.ha.master;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageResult;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.testing.TestMessages;
import io.basalt.store.testing.TestStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HA's replica wait is durability-critical: an unexpected error in it fail-stops the store, so
 * SYNC_MASTER puts are refused at once instead of each waiting for its slave timeout.
 */
class GroupTransferServiceFailureTest {
    private static final long SLAVE_TIMEOUT_MS = 30_000;

    @TempDir
    Path dir;

    @Test
    void anUnexpectedErrorInTheReplicaWaitFailStopsTheStore() throws Exception {
        MessageStore store = TestStores.start(TestStores.config(dir).build());
        AtomicBoolean broken = new AtomicBoolean();
        GroupTransferService.SlaveAcks acks = new GroupTransferService.SlaveAcks() {
            @Override
            public long bestAckOffset() {
                if (broken.get()) {
                    throw new IllegalStateException("injected fault in the slaves' acknowledgements");
                }
                return 0;
            }

            @Override
            public boolean hasSlaveInSync(long gap) {
                return true;
            }
        };
        GroupTransferService replicaWait = new GroupTransferService(acks, SLAVE_TIMEOUT_MS, 1 << 20,
            store.durabilityErrorPolicy());
        try {
            store.replicatedLog().setReplicaWait(replicaWait);
            replicaWait.start();
            CompletableFuture<PutMessageResult> waiting = store.asyncPutMessage(
                TestMessages.message("T", 0, "waits for a slave").build());
            assertFalse(waiting.isDone(), "no slave has acknowledged it");

            broken.set(true);
            replicaWait.wakeup();

            await().atMost(Duration.ofSeconds(10)).until(store::isFailStopped);
            assertFalse(store.isWritable());
            assertTrue(replicaWait.errorCount() >= 1, "the error is counted");
            assertEquals(PutMessageStatus.SERVICE_NOT_AVAILABLE,
                store.asyncPutMessage(TestMessages.message("T", 0, "after").build()).get(1, TimeUnit.SECONDS).status(),
                "the next put is refused at once");
            replicaWait.shutdown();
            PutMessageResult answered = waiting.get(5, TimeUnit.SECONDS);
            assertTrue(answered.status().isStored() && answered.status() != PutMessageStatus.PUT_OK,
                "the waiting put is answered, as stored but not replicated: " + answered);
        } finally {
            replicaWait.shutdown();
            store.shutdown();
        }
    }
}
