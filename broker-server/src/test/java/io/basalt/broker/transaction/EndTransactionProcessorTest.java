package io.basalt.broker.transaction;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.basalt.broker.transaction.TransactionDecisions.Decision;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageResult;
import io.basalt.store.QueryMessageResult;
import io.basalt.store.StoredMessage;
import io.basalt.store.testing.TestStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * END_TRANSACTION on a real store: RocketMQ's refusals with their codes and remarks (each counted), the committed
 * record's fields, rollback, and what Basalt adds: a transaction is decided once, also when the first decision was
 * made before the broker started.
 */
class EndTransactionProcessorTest {
    static final InetSocketAddress BROKER = new InetSocketAddress("127.0.0.1", 10911);
    static final InetSocketAddress PRODUCER = new InetSocketAddress("127.0.0.1", 45000);
    private static final RequestContext CONTEXT = new RequestContext(null, PRODUCER, BROKER, 0);

    @TempDir
    Path dir;
    MessageStore store;
    final AtomicLong now = new AtomicLong(System.currentTimeMillis());
    final AtomicBoolean writable = new AtomicBoolean(true);
    OpMarkerWriter markers;
    HalfMessageDecisions decisions;
    TransactionCounters counters;
    TransactionMetrics metrics;
    EndTransactionProcessor processor;

    @BeforeEach
    void open() throws Exception {
        store = TestStores.start(TestStores.config(dir.resolve("store")).build());
        store.addPutTransform(new HalfMessageTransform());
        counters = new TransactionCounters();
        metrics = new TransactionMetrics(dir.resolve("config"), now::get);
        processor = newProcessor();
    }

    /** A processor as a freshly started broker has it: new tables, "before start" = the store as it is now. */
    private EndTransactionProcessor newProcessor() {
        markers = new OpMarkerWriter(store, BROKER, 4096, 3000, now::get);
        decisions = new HalfMessageDecisions(store, markers, () -> -1, now::get, 1000);
        decisions.beginDeciding();
        return new EndTransactionProcessor(store, writable::get, 6000, decisions, counters, metrics, now::get);
    }

    @AfterEach
    void close() {
        store.shutdown();
    }

    /** A half message as the send path hands it to the store; returns the half record as stored. */
    StoredMessage half(String uniqKey, String extraProperties) {
        String properties = "TRAN_MSG\u0001true\u0002PGROUP\u0001pg\u0002TAGS\u0001TagA\u0002UNIQ_KEY\u0001" + uniqKey
            + "\u0002WAIT\u0001true\u0002" + extraProperties + "CLUSTER\u0001DefaultCluster\u0002";
        BrokerMessage m = BrokerMessage.builder().topic("T").queueId(2).flag(7)
            .body(("body-" + uniqKey).getBytes(StandardCharsets.UTF_8)).propertiesString(properties)
            .bornTimestamp(now.get() - 100).bornHost(PRODUCER).storeHost(BROKER).sysFlag(TransactionalMessages
                .TRANSACTION_PREPARED_TYPE).reconsumeTimes(0).build();
        PutMessageResult r = store.asyncPutMessage(m).join();
        assertTrue(r.status().isStored(), r.toString());
        return store.lookMessageByOffset(r.appendedMessages().get(0).physicalOffset());
    }

    static RemotingCommand end(StoredMessage half, int commitOrRollback, boolean fromCheck) {
        RemotingCommand r = RemotingCommand.request(RequestCode.END_TRANSACTION);
        r.putExtField("producerGroup", "pg");
        r.putExtField("tranStateTableOffset", Long.toString(half.queueOffset()));
        r.putExtField("commitLogOffset", Long.toString(half.physicalOffset()));
        r.putExtField("commitOrRollback", Integer.toString(commitOrRollback));
        r.putExtField("fromTransactionCheck", Boolean.toString(fromCheck));
        r.putExtField("msgId", half.property("UNIQ_KEY"));
        r.putExtField("transactionId", half.property("UNIQ_KEY"));
        r.putExtField("bname", "broker-a");
        r.markOneway();
        return r;
    }

    RemotingCommand call(RemotingCommand request) throws Exception {
        return processor.processRequest(CONTEXT, request).get();
    }

    /** The entries of a queue once the dispatcher has caught up with the CommitLog. */
    long queueSize(String topic, int queueId) {
        await().atMost(ofSeconds(5)).until(() -> store.getReputFromOffset() >= store.getMaxPhyOffset());
        return store.getMaxOffsetInQueue(topic, queueId);
    }

    /** The records of queue 2 of T, in order. */
    List<StoredMessage> delivered() {
        List<StoredMessage> out = new java.util.ArrayList<>();
        for (long o = 0; o < queueSize("T", 2); o++) {
            out.add(store.lookMessageByOffset(store.getCommitLogOffsetInQueue("T", 2, o)));
        }
        return out;
    }

    @Test
    void aCommitPutsTheHalfMessageIntoItsRealQueueAsRocketMqBuildsIt() throws Exception {
        StoredMessage half = half("U1", "");
        metrics.halfStored("T");

        RemotingCommand response = call(end(half, TransactionalMessages.TRANSACTION_COMMIT_TYPE, false));

        assertEquals(ResponseCode.SUCCESS, response.code(), response.remark());
        await().atMost(ofSeconds(5)).until(() -> store.getMaxOffsetInQueue("T", 2) == 1);
        StoredMessage committed = delivered().get(0);
        assertEquals("T", committed.topic());
        assertEquals(2, committed.queueId());
        assertEquals(TransactionalMessages.TRANSACTION_COMMIT_TYPE, committed.sysFlag() & 0xC);
        assertEquals(half.sysFlag() & ~0xC, committed.sysFlag() & ~0xC);
        assertEquals(half.physicalOffset(), committed.preparedTransactionOffset());
        assertEquals(half.properties(), committed.properties(), "the half record's properties verbatim");
        assertEquals("true", committed.property("TRAN_MSG"));
        assertEquals("T", committed.property("REAL_TOPIC"));
        assertEquals("U1", committed.property("__transactionId__"));
        assertArrayEquals(half.body(), committed.body());
        assertEquals(7, committed.flag());
        assertEquals(half.bornTimestamp(), committed.bornTimestamp());
        assertEquals(half.bornHost(), committed.bornHost());
        assertEquals(half.storeHost(), committed.storeHost());
        assertEquals(half.reconsumeTimes(), committed.reconsumeTimes());
        assertEquals(1, store.readQueueEntries("T", 2, 0, 1).size());
        assertEquals("TagA".hashCode(), store.readQueueEntries("T", 2, 0, 1).get(0).tagsCode());
        assertTrue(decisions.isMarkedDone(half.queueOffset()));
        assertEquals(Optional.of(Decision.COMMIT), decisions.decisionFor(half));
        assertEquals(1, counters.byTopic().get("T").committed());
        assertEquals(0, metrics.pending("T"));
        assertEquals(1, markers.pendingCount(), "the op marker waits for its batch");
    }

    @Test
    void aRollbackWritesNothingToTheRealTopicAndMarksTheHalfMessageDone() throws Exception {
        StoredMessage half = half("U2", "");

        RemotingCommand response = call(end(half, TransactionalMessages.TRANSACTION_ROLLBACK_TYPE, false));

        assertEquals(ResponseCode.SUCCESS, response.code(), response.remark());
        assertEquals(0, queueSize("T", 2));
        assertTrue(decisions.isMarkedDone(half.queueOffset()));
        assertEquals(Optional.of(Decision.ROLLBACK), decisions.decisionFor(half));
        assertEquals(1, counters.byTopic().get("T").rolledBack());
    }

    @Test
    void aSecondCommitWritesNoSecondRecordAndAConflictingDecisionIsIgnored() throws Exception {
        StoredMessage half = half("U3", "");
        assertEquals(ResponseCode.SUCCESS, call(end(half, 8, false)).code());

        RemotingCommand again = call(end(half, 8, true));
        RemotingCommand conflicting = call(end(half, 12, true));

        assertEquals(ResponseCode.SUCCESS, again.code(), again.remark());
        assertEquals(ResponseCode.SYSTEM_ERROR, conflicting.code());
        assertTrue(conflicting.remark().contains("already committed"), conflicting.remark());
        assertEquals(1, queueSize("T", 2), "committed once");
        assertEquals(2, counters.duplicateDecisions());
        assertEquals(1, counters.byTopic().get("T").committed());
        assertEquals(0, counters.byTopic().get("T").rolledBack());
        assertEquals(Optional.of(Decision.COMMIT), decisions.decisionFor(half));
    }

    @Test
    void aCommitOfACheckCopyOfACommittedTransactionWritesNothingButMarksTheCopyDone() throws Exception {
        StoredMessage original = half("U4", "");
        assertEquals(ResponseCode.SUCCESS, call(end(original, 8, false)).code());
        // a check copy of the same transaction (as the scan writes it: same properties and a check count)
        StoredMessage copy = store.lookMessageByOffset(store.asyncPutMessage(BrokerMessage.builder()
            .topic(TransactionalMessages.HALF_TOPIC).queueId(0).body(original.body())
            .propertiesString(original.properties() + "TRANSACTION_CHECK_TIMES\u00011\u0002")
            .bornTimestamp(original.bornTimestamp()).bornHost(PRODUCER).storeHost(BROKER).build()).join()
            .appendResult().physicalOffset());

        assertEquals(ResponseCode.SUCCESS, call(end(copy, 8, true)).code());

        assertEquals(1, queueSize("T", 2));
        assertTrue(decisions.isMarkedDone(copy.queueOffset()), "not checked again");
    }

    @Test
    void aCommitFromBeforeTheBrokerStartedIsFoundInTheStore() throws Exception {
        StoredMessage half = half("U5", "");
        assertEquals(ResponseCode.SUCCESS, call(end(half, 8, false)).code());
        await().atMost(ofSeconds(5)).until(() -> {
            try (QueryMessageResult r = store.queryMessage("T", "U5", 10, 0, Long.MAX_VALUE)) {
                return !r.messages().isEmpty();
            }
        });

        // a restarted broker: its tables are empty, the op marker was never written
        processor = newProcessor();
        assertEquals(Optional.of(Decision.COMMIT), decisions.decisionFor(half));
        RemotingCommand late = call(end(half, 8, true));

        assertEquals(ResponseCode.SUCCESS, late.code(), late.remark());
        assertEquals(1, queueSize("T", 2), "not committed twice");
        assertTrue(decisions.isMarkedDone(half.queueOffset()));
    }

    @Test
    void anUndecidedTransactionFromBeforeStartIsUndecidedAndAfterStartIsNotLookedUp() throws Exception {
        StoredMessage before = half("U6", "");
        processor = newProcessor();
        StoredMessage after = half("U7", "");

        assertEquals(Optional.empty(), decisions.decisionFor(before));
        assertEquals(Optional.empty(), decisions.decisionFor(after));
        assertEquals(ResponseCode.SUCCESS, call(end(before, 8, false)).code());
        assertEquals(1, queueSize("T", 2));
    }

    @Test
    void aSlaveRefusesAndNothingIsDone() throws Exception {
        StoredMessage half = half("U8", "");
        writable.set(false);

        RemotingCommand response = call(end(half, 8, false));

        assertEquals(ResponseCode.SLAVE_NOT_AVAILABLE, response.code());
        assertEquals(Map.of("slave", 1L), counters.endRefusals());
        assertFalse(decisions.isMarkedDone(half.queueOffset()));
    }

    @Test
    void anUnknownStateDoesNothing() throws Exception {
        StoredMessage half = half("U9", "");

        call(end(half, 0, false));
        call(end(half, 0, true));

        assertEquals(0, queueSize("T", 2));
        assertFalse(decisions.isMarkedDone(half.queueOffset()));
        assertEquals(Map.of(), counters.endRefusals());
    }

    @Test
    void aRecordThatIsNotThereOrNotAHalfMessageIsNotFound() throws Exception {
        StoredMessage half = half("U10", "");
        RemotingCommand noRecord = end(half, 8, false);
        noRecord.putExtField("commitLogOffset", Long.toString(half.physicalOffset() + 1));
        BrokerMessage plain = BrokerMessage.builder().topic("T").queueId(1).body(new byte[] {1})
            .propertiesString("PGROUP\u0001pg\u0002").bornTimestamp(now.get()).bornHost(PRODUCER).storeHost(BROKER).build();
        long plainOffset = store.asyncPutMessage(plain).join().appendResult().physicalOffset();
        RemotingCommand notHalf = end(half, 8, false);
        notHalf.putExtField("commitLogOffset", Long.toString(plainOffset));
        notHalf.putExtField("tranStateTableOffset", "0");

        RemotingCommand a = call(noRecord);
        RemotingCommand b = call(notHalf);

        assertEquals(ResponseCode.SYSTEM_ERROR, a.code());
        assertEquals("Find prepared transaction message failed", a.remark());
        assertEquals(ResponseCode.SYSTEM_ERROR, b.code());
        assertTrue(b.remark().startsWith("Find prepared transaction message failed"), b.remark());
        assertEquals(Map.of("not_found", 2L), counters.endRefusals());
        assertEquals(0, queueSize("T", 2));
    }

    @Test
    void aWrongProducerGroupOrStateTableOffsetIsRefused() throws Exception {
        StoredMessage half = half("U11", "");
        RemotingCommand wrongGroup = end(half, 8, false);
        wrongGroup.putExtField("producerGroup", "other");
        RemotingCommand wrongOffset = end(half, 12, false);
        wrongOffset.putExtField("tranStateTableOffset", Long.toString(half.queueOffset() + 5));

        RemotingCommand a = call(wrongGroup);
        RemotingCommand b = call(wrongOffset);

        assertEquals(ResponseCode.SYSTEM_ERROR, a.code());
        assertEquals("The producer group wrong", a.remark());
        assertEquals(ResponseCode.SYSTEM_ERROR, b.code());
        assertEquals("The transaction state table offset wrong", b.remark());
        assertEquals(Map.of("producer_group", 1L, "state_table_offset", 1L), counters.endRefusals());
        assertEquals(0, queueSize("T", 2));
        assertFalse(decisions.isMarkedDone(half.queueOffset()));
    }

    @Test
    void aProducersDecisionPastTheCheckImmunityIsLeftToTheCheck() throws Exception {
        StoredMessage half = half("U12", "CHECK_IMMUNITY_TIME_IN_SECONDS\u000110\u0002");
        now.addAndGet(11_000);

        RemotingCommand own = call(end(half, 8, false));
        RemotingCommand answer = call(end(half, 8, true));

        assertEquals(ResponseCode.ILLEGAL_OPERATION, own.code());
        assertTrue(own.remark().contains("wait check"), own.remark());
        assertEquals(Map.of("immunity", 1L), counters.endRefusals());
        assertEquals(ResponseCode.SUCCESS, answer.code(), "a check's answer is taken");
        assertEquals(1, queueSize("T", 2));
    }

    @Test
    void aBadHeaderIsRefused() throws Exception {
        StoredMessage half = half("U13", "");
        RemotingCommand missing = end(half, 8, false);
        missing.extFields().remove("producerGroup");
        RemotingCommand badType = end(half, 5, false);

        assertEquals(ResponseCode.SYSTEM_ERROR, call(missing).code());
        assertEquals(ResponseCode.SYSTEM_ERROR, call(badType).code());
        assertEquals(Map.of("bad_request", 2L), counters.endRefusals());
    }

    @Test
    void theOpMarkerOfADecisionIsWrittenInRocketMqsFormat() throws Exception {
        StoredMessage a = half("U14", "");
        StoredMessage b = half("U15", "");
        call(end(a, 8, false));
        call(end(b, 12, false));
        now.addAndGet(3000);

        assertEquals(2, markers.doWork());

        assertEquals(1, queueSize(TransactionalMessages.OP_HALF_TOPIC, 0));
        StoredMessage marker = store.lookMessageByOffset(
            store.getCommitLogOffsetInQueue(TransactionalMessages.OP_HALF_TOPIC, 0, 0));
        assertEquals(a.queueOffset() + "," + b.queueOffset() + ",", new String(marker.body(), StandardCharsets.US_ASCII));
        assertEquals("WAIT\u0001true\u0002TAGS\u0001d\u0002", marker.properties());
        assertEquals(0, marker.sysFlag());
        assertEquals(BROKER, marker.bornHost());
        assertEquals(BROKER, marker.storeHost());
        assertEquals(now.get(), marker.bornTimestamp());
        assertEquals("d".hashCode(), store.readQueueEntries(TransactionalMessages.OP_HALF_TOPIC, 0, 0, 1).get(0).tagsCode());
        assertNull(marker.property("UNIQ_KEY"));
        assertTrue(decisions.isMarkedDone(a.queueOffset()) && decisions.isMarkedDone(b.queueOffset()));
    }

    @Test
    void aCommitWhosePutFailsLeavesTheTransactionUndecided() throws Exception {
        StoredMessage half = half("U16", "");
        AtomicBoolean refuse = new AtomicBoolean(true);
        store.addPutTransform(m -> refuse.get() && "T".equals(m.topic())
            ? io.basalt.store.PutMessageTransform.Decision.refuse(io.basalt.store.PutMessageStatus.SERVICE_NOT_AVAILABLE,
                "disk full, say")
            : io.basalt.store.PutMessageTransform.Decision.append(m));

        RemotingCommand failed = call(end(half, 8, false));

        assertEquals(ResponseCode.SERVICE_NOT_AVAILABLE, failed.code());
        assertTrue(failed.remark().contains("stays undecided"), failed.remark());
        assertFalse(decisions.isMarkedDone(half.queueOffset()));
        assertEquals(Optional.empty(), decisions.decisionFor(half));
        assertEquals(Map.of("commit_put_failed", 1L), counters.endRefusals());

        refuse.set(false);
        assertEquals(ResponseCode.SUCCESS, call(end(half, 8, true)).code(), "the check's answer commits it");
        assertEquals(1, queueSize("T", 2));
    }
}
