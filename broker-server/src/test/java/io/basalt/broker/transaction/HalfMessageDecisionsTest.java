package io.basalt.broker.transaction;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import io.basalt.broker.transaction.TransactionDecisions.Decision;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageResult;
import io.basalt.store.StoredMessage;
import io.basalt.store.testing.TestStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The decision tables: claims, pruning behind the check scan, and the store lookup that covers what was pruned. */
class HalfMessageDecisionsTest {
    private static final InetSocketAddress BROKER = new InetSocketAddress("127.0.0.1", 10911);

    @TempDir
    Path dir;
    MessageStore store;
    final AtomicLong scanOffset = new AtomicLong(-1);
    OpMarkerWriter markers;

    @BeforeEach
    void open() throws Exception {
        store = TestStores.start(TestStores.config(dir.resolve("store")).build());
        store.addPutTransform(new HalfMessageTransform());
        markers = new OpMarkerWriter(store, BROKER, 4096, 3000, System::currentTimeMillis);
    }

    @AfterEach
    void close() {
        store.shutdown();
    }

    private HalfMessageDecisions decisions(int maxTransactions) {
        HalfMessageDecisions d = new HalfMessageDecisions(store, markers, scanOffset::get, System::currentTimeMillis,
            maxTransactions);
        d.beginDeciding();
        return d;
    }

    private StoredMessage half(String uniqKey) {
        BrokerMessage m = BrokerMessage.builder().topic("T").queueId(0).body(uniqKey.getBytes(StandardCharsets.UTF_8))
            .propertiesString("TRAN_MSG\u0001true\u0002PGROUP\u0001pg\u0002UNIQ_KEY\u0001" + uniqKey + "\u0002")
            .bornTimestamp(System.currentTimeMillis()).bornHost(BROKER).storeHost(BROKER)
            .sysFlag(TransactionalMessages.TRANSACTION_PREPARED_TYPE).build();
        PutMessageResult r = store.asyncPutMessage(m).join();
        return store.lookMessageByOffset(r.appendedMessages().get(0).physicalOffset());
    }

    private void commitInStore(StoredMessage half) throws Exception {
        assertTrue(store.asyncPutMessage(CommittedMessage.of(half)).join().status().isStored());
        await().atMost(ofSeconds(5)).until(() -> store.getReputFromOffset() >= store.getMaxPhyOffset());
    }

    @Test
    void aClaimHoldsOffASecondRequestUntilItIsReleased() {
        HalfMessageDecisions d = decisions(100);
        StoredMessage h = half("A");

        assertTrue(d.claim(h, Decision.COMMIT).granted());
        HalfMessageDecisions.Claim second = d.claim(h, Decision.ROLLBACK);
        assertEquals(Decision.COMMIT, second.existing(), "being decided");
        assertFalse(second.settled(), "the commit may still fail");
        d.release(h, Decision.COMMIT);
        assertTrue(d.claim(h, Decision.ROLLBACK).granted(), "a failed commit decided nothing");
        d.markDone(h.queueOffset(), h, Decision.ROLLBACK);
        d.release(h, Decision.ROLLBACK);
        assertEquals(new HalfMessageDecisions.Claim(Decision.ROLLBACK, true), d.claim(h, Decision.COMMIT));
    }

    @Test
    void prunedEntriesAreThoseTheScanPassedAndACommitAmongThemIsFoundInTheStore() throws Exception {
        HalfMessageDecisions d = decisions(100);
        StoredMessage h0 = half("A");
        StoredMessage h1 = half("B");
        StoredMessage h2 = half("C");
        commitInStore(h0);
        d.markDone(h0.queueOffset(), h0, Decision.COMMIT);
        d.markDone(h1.queueOffset(), h1, Decision.ROLLBACK);

        scanOffset.set(2);
        d.prune();
        assertFalse(d.isMarkedDone(0), "the scan is past it");
        assertFalse(d.isMarkedDone(1));
        assertEquals(2, d.rememberedTransactions(), "a half record of theirs could still be at offset 2");

        scanOffset.set(3);
        d.prune();
        assertEquals(0, d.rememberedTransactions());
        assertEquals(Optional.of(Decision.COMMIT), d.decisionFor(h0), "looked up in the store");
        assertEquals(Optional.empty(), d.decisionFor(h2), "undecided");
    }

    @Test
    void pastItsBoundTheTableIsEmptiedAndAnswersComeFromTheStore() throws Exception {
        HalfMessageDecisions d = decisions(1);
        StoredMessage h0 = half("A");
        StoredMessage h1 = half("B");
        commitInStore(h0);
        commitInStore(h1);
        d.markDone(h0.queueOffset(), h0, Decision.COMMIT);
        d.markDone(h1.queueOffset(), h1, Decision.COMMIT);

        d.prune();

        assertEquals(0, d.rememberedTransactions());
        assertEquals(Optional.of(Decision.COMMIT), d.decisionFor(h0));
        assertEquals(Optional.of(Decision.COMMIT), d.decisionFor(h1));
        assertEquals(2, markers.pendingCount(), "the markers are still written");
    }
}
