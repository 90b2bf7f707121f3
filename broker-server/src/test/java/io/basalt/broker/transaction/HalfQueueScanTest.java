package io.basalt.broker.transaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.store.MessageProperties;
import io.basalt.store.StoredMessage;

/**
 * The back-check's scan on a real store: what is checked, when, how often, and what is written and committed.
 */
class HalfQueueScanTest {
    private static final CheckSettings SETTINGS = new CheckSettings(6_000, 30_000, 15, 72);

    @TempDir
    Path dir;
    private CheckFixture f;

    @BeforeEach
    void open() throws Exception {
        f = new CheckFixture(dir);
    }

    @AfterEach
    void close() {
        f.close();
    }

    @Test
    void undecidedHalfMessagesOlderThanTheTimeoutAreCheckedOncePerScan() {
        for (int i = 0; i < 3; i++) {
            f.putHalf("tx" + i, Map.of());
        }
        HalfQueueScan scan = f.scan(SETTINGS);

        HalfQueueScan.Report young = f.run(scan);
        assertEquals(0, young.checked(), "younger than transactionTimeOut");
        assertEquals(0, young.halfOffset(), "the scan stops at the young message and keeps its place");
        assertTrue(f.newRequests().isEmpty());

        f.advance(10_000);
        HalfQueueScan.Report first = f.run(scan);
        assertEquals(3, first.checked());
        assertEquals(3, first.halfOffset(), "past the three originals, not past their copies");
        assertEquals(6, f.halfQueueEnd(), "one check copy each");
        List<RemotingCommand> requests = f.newRequests();
        assertEquals(3, requests.size());
        for (int i = 0; i < 3; i++) {
            assertEquals("1", f.halfRecord(3 + i).property(TransactionalMessages.PROPERTY_TRANSACTION_CHECK_TIMES));
            assertEquals(String.valueOf(3 + i), requests.get(i).extFields().get("tranStateTableOffset"));
        }
        assertEquals(3, f.counters.byTopic().get("TopicA").checked());
        assertTrue(f.counters.byTopic().get("TopicA").oldestUndecidedAgeMs() >= 10_000);

        f.advance(30_000);
        HalfQueueScan.Report second = f.run(scan);
        assertEquals(3, second.checked(), "the copies, once each");
        assertEquals(6, second.halfOffset());
        for (int i = 0; i < 3; i++) {
            assertEquals("2", f.halfRecord(6 + i).property(TransactionalMessages.PROPERTY_TRANSACTION_CHECK_TIMES));
        }
        assertEquals(3, f.newRequests().size());
    }

    @Test
    void theCheckRequestCarriesTheCopysIdentityAndTheMessageAsAV1Record() {
        f.putHalf("tx-id", Map.of("KEYS", "k1"));
        f.advance(10_000);
        f.run(f.scan(SETTINGS));
        RemotingCommand request = f.newRequests().get(0);
        StoredMessage copy = f.halfRecord(1);

        assertEquals(RequestCode.CHECK_TRANSACTION_STATE, request.code());
        assertTrue(request.isOneway());
        Map<String, String> header = request.extFields();
        assertEquals(Map.of("tranStateTableOffset", "1", "commitLogOffset", Long.toString(copy.physicalOffset()),
            "msgId", "tx-id", "transactionId", "tx-id", "offsetMsgId", copy.offsetMsgId(), "bname", "broker-a"), header);

        ByteBuffer body = ByteBuffer.wrap(request.body());
        assertEquals(request.body().length, body.getInt(), "storeSize");
        assertEquals(0xDAA320A7, body.getInt(), "V1 magic");
        assertEquals(copy.bodyCrc(), body.getInt());
        assertEquals(3, body.getInt(), "queue id = REAL_QID");
        assertEquals(7, body.getInt(), "flag");
        assertEquals(1, body.getLong(), "queue offset of the copy");
        assertEquals(copy.physicalOffset(), body.getLong(), "CommitLog offset of the copy");
        assertEquals(copy.sysFlag(), body.getInt());
        assertEquals(copy.bornTimestamp(), body.getLong());
        byte[] bornAddress = new byte[4];
        body.get(bornAddress);
        assertEquals(CheckFixture.PRODUCER.getPort(), body.getInt());
        assertEquals(copy.storeTimestamp(), body.getLong());
        body.get(new byte[4]);
        assertEquals(CheckFixture.STORE_HOST.getPort(), body.getInt());
        assertEquals(0, body.getInt(), "reconsume times");
        assertEquals(0, body.getLong(), "prepared transaction offset");
        byte[] messageBody = new byte[body.getInt()];
        body.get(messageBody);
        assertEquals("body-tx-id", new String(messageBody, StandardCharsets.UTF_8));
        byte[] topic = new byte[body.get()];
        body.get(topic);
        assertEquals("TopicA", new String(topic, StandardCharsets.UTF_8), "topic = REAL_TOPIC");
        byte[] properties = new byte[body.getShort()];
        body.get(properties);
        assertFalse(body.hasRemaining());
        Map<String, String> props = MessageProperties.parse(new String(properties, StandardCharsets.UTF_8));
        assertEquals("1", props.get(TransactionalMessages.PROPERTY_TRANSACTION_CHECK_TIMES));
        assertEquals("tx-id", props.get(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX));
        assertEquals(CheckFixture.GROUP, props.get(TransactionalMessages.PROPERTY_PRODUCER_GROUP));
        assertEquals("k1", props.get("KEYS"));
    }

    @Test
    void halfMessagesNamedByOpMarkersOfEitherFormatOrMarkedDoneAreNotChecked() {
        for (int i = 0; i < 5; i++) {
            f.putHalf("tx" + i, Map.of());
        }
        f.putOpMarker("0,2,", "d");          // RocketMQ 5.x, batched
        f.putOpMarker("1", "d");             // RocketMQ 4.9, one offset
        f.decisions.marked.add(3L);          // decided, its marker not yet written
        f.advance(10_000);

        HalfQueueScan.Report report = f.run(f.scan(SETTINGS));
        assertEquals(1, report.checked(), "only tx4");
        assertEquals(4, report.decided());
        assertEquals("tx4", f.newRequests().get(0).extFields().get("msgId"));
        assertEquals(5, report.halfOffset());
        assertEquals(2, report.opOffset(), "past both markers, every offset they name is behind the half offset");
        assertEquals(2, f.offsets.queryOffset(TransactionalMessages.SCAN_GROUP, TransactionalMessages.OP_HALF_TOPIC, 0));
    }

    @Test
    void aTransactionDecidedWithoutAMarkerIsMarkedDoneNotChecked() {
        f.putHalf("tx0", Map.of());
        f.decisions.byUniqKey.put("tx0", TransactionDecisions.Decision.COMMIT);
        f.advance(10_000);
        HalfQueueScan.Report report = f.run(f.scan(SETTINGS));
        assertEquals(0, report.checked());
        assertEquals(1, report.markedDone());
        assertEquals(TransactionDecisions.Decision.COMMIT, f.decisions.markedByScan.get(0L));
        assertTrue(f.newRequests().isEmpty());
        assertEquals(1, f.halfQueueEnd(), "no copy");
    }

    @Test
    void anUnreadableMarkerIsSkippedAndTheScanGoesOn() {
        f.putHalf("tx0", Map.of());
        f.putHalf("tx1", Map.of());
        f.putOpMarker("zz,", "d");
        f.putOpMarker("0,", "x");       // not a remove tag
        f.putOpMarker("1,", "d");
        f.advance(10_000);
        HalfQueueScan.Report report = f.run(f.scan(SETTINGS));
        assertEquals(1, report.checked(), "tx0: the marker with another tag does not decide it");
        assertEquals(3, report.opOffset());
    }

    @Test
    void theOpOffsetWaitsForAMarkerNamingAnOffsetTheScanHasNotPassed() {
        f.putHalf("tx0", Map.of());
        f.putHalf("tx1", Map.of());
        f.putOpMarker("1,", "d");
        HalfQueueScan.Report report = f.run(f.scan(SETTINGS));
        assertEquals(0, report.halfOffset(), "tx0 is young");
        assertEquals(0, report.opOffset(), "the marker names 1, not yet passed");
    }

    @Test
    void aYoungMessageUnderImmunityIsCarriedOnAndItsDecidedOriginalEndsIt() {
        f.putHalf("tx0", Map.of(TransactionalMessages.PROPERTY_CHECK_IMMUNITY_TIME_IN_SECONDS, "60"));
        f.putHalf("tx1", Map.of());
        f.advance(10_000);
        HalfQueueScan scan = f.scan(SETTINGS);

        HalfQueueScan.Report first = f.run(scan);
        assertEquals(1, first.immunityCopies());
        assertEquals(1, first.checked(), "tx1 behind it is not held up");
        assertEquals(List.of("tx1"), f.newRequests().stream().map(r -> r.extFields().get("msgId")).toList());
        StoredMessage immunityCopy = f.halfRecord(2);
        assertEquals("tx0", immunityCopy.property(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX));
        assertEquals("0", immunityCopy.property(TransactionalMessages.PROPERTY_TRANSACTION_PREPARED_QUEUE_OFFSET));
        assertNull(immunityCopy.property(TransactionalMessages.PROPERTY_TRANSACTION_CHECK_TIMES), "not a check");

        f.advance(20_000);
        HalfQueueScan.Report second = f.run(scan);
        assertEquals(1, second.immunityCopies(), "still immune at 30 s");
        assertEquals("0", f.halfRecord(4).property(TransactionalMessages.PROPERTY_TRANSACTION_PREPARED_QUEUE_OFFSET),
            "the copy of a copy names the original");
        assertEquals(1, f.newRequests().size(), "tx1's copy");

        f.putOpMarker("0,", "d");   // the producer committed the original
        f.advance(10_000);
        HalfQueueScan.Report third = f.run(scan);
        assertEquals(0, third.immunityCopies());
        assertEquals(1, third.checked(), "only tx1's copy");
        assertEquals(List.of("tx1"), f.newRequests().stream().map(r -> r.extFields().get("msgId")).toList());
    }

    @Test
    void aMessageUnderImmunityIsCheckedOnceItsImmunityHasPassed() {
        f.putHalf("tx0", Map.of(TransactionalMessages.PROPERTY_CHECK_IMMUNITY_TIME_IN_SECONDS, "20"));
        f.advance(10_000);
        HalfQueueScan scan = f.scan(SETTINGS);
        assertEquals(1, f.run(scan).immunityCopies());
        f.advance(15_000);
        HalfQueueScan.Report report = f.run(scan);
        assertEquals(1, report.checked());
        assertEquals("1", f.halfRecord(2).property(TransactionalMessages.PROPERTY_TRANSACTION_CHECK_TIMES));
    }

    @Test
    void withoutALiveProducerNoCheckIsSpentAndTheScanGoesOnWithoutAStorm() {
        f.producerOnline.set(false);
        f.putHalf("tx0", Map.of());
        f.putHalf("tx1", Map.of());
        CheckSettings twoChecks = new CheckSettings(6_000, 30_000, 2, 72);
        HalfQueueScan scan = f.scan(twoChecks);
        for (int round = 1; round <= 4; round++) {
            f.advance(30_000);
            HalfQueueScan.Report report = f.run(scan);
            assertEquals(0, report.checked());
            assertEquals(2, report.parked(), "each once per scan, round " + round);
            assertEquals(0, report.givenUp(), "never given up unasked");
        }
        assertTrue(f.newRequests().isEmpty());
        assertEquals(10, f.halfQueueEnd(), "one carried copy per message per scan");
        assertNull(f.halfRecord(9).property(TransactionalMessages.PROPERTY_TRANSACTION_CHECK_TIMES));
        assertEquals(0, f.counters.byTopic().getOrDefault("TopicA",
            new TransactionCounters.TopicCounts(0, 0, 0, 0, 0, 0)).checked());

        f.producerOnline.set(true);
        f.advance(30_000);
        HalfQueueScan.Report back = f.run(scan);
        assertEquals(2, back.checked());
        assertEquals("1", f.halfRecord(10).property(TransactionalMessages.PROPERTY_TRANSACTION_CHECK_TIMES));
    }

    @Test
    void aCopyOfAHalfMessageCarryingADelayStaysInTheHalfQueue() {
        f.putHalf("tx0", Map.of(MessageProperties.DELAY_TIME_LEVEL, "2"));
        f.advance(10_000);
        assertEquals(1, f.run(f.scan(SETTINGS)).checked());
        assertEquals(2, f.halfQueueEnd(), "the check copy is in the half queue, not in SCHEDULE_TOPIC_XXXX");
        assertNull(f.halfRecord(1).property(MessageProperties.DELAY_TIME_LEVEL));
        assertEquals(0, f.store.getMaxOffsetInQueue(io.basalt.store.DelayLevels.SCHEDULE_TOPIC, 1));
    }

    @Test
    void aCheckNotWrittenToTheConnectionIsNotCounted() {
        f.putHalf("tx0", Map.of());
        f.connection.failWrites.set(true);
        f.advance(10_000);
        HalfQueueScan scan = f.scan(SETTINGS);
        assertEquals(1, f.run(scan).checked());
        assertEquals(0, f.counters.byTopic().get("TopicA").checked());

        f.connection.failWrites.set(false);
        f.advance(30_000);
        assertEquals(1, f.run(scan).checked());
        assertEquals("1", f.halfRecord(2).property(TransactionalMessages.PROPERTY_TRANSACTION_CHECK_TIMES),
            "the unsent check is taken off again");
        assertEquals(1, f.counters.byTopic().get("TopicA").checked());
    }

    @Test
    void afterTransactionCheckMaxChecksTheMessageIsGivenUpAndCanBeResumed() throws Exception {
        f.putHalf("tx0", Map.of());
        CheckSettings twoChecks = new CheckSettings(6_000, 30_000, 2, 72);
        HalfQueueScan scan = f.scan(twoChecks);
        f.advance(10_000);
        assertEquals(1, f.run(scan).checked());
        f.advance(30_000);
        assertEquals(1, f.run(scan).checked());
        f.advance(30_000);
        HalfQueueScan.Report third = f.run(scan);
        assertEquals(0, third.checked());
        assertEquals(1, third.givenUp());
        assertEquals(2, f.newRequests().size());

        assertNotNull(f.topics.get(TransactionalMessages.CHECK_MAX_TIME_TOPIC));
        assertEquals(1, f.topics.get(TransactionalMessages.CHECK_MAX_TIME_TOPIC).queueNums());
        assertEquals(6, f.topics.get(TransactionalMessages.CHECK_MAX_TIME_TOPIC).perm());
        f.topics.persist();
        assertTrue(Files.readString(dir.resolve("config/topics.json")).contains(TransactionalMessages.CHECK_MAX_TIME_TOPIC));
        assertEquals(1, f.store.getMaxOffsetInQueue(TransactionalMessages.CHECK_MAX_TIME_TOPIC, 0));
        StoredMessage givenUp = f.store.lookMessageByOffset(
            f.store.getCommitLogOffsetInQueue(TransactionalMessages.CHECK_MAX_TIME_TOPIC, 0, 0));
        assertEquals("tx0", givenUp.property(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX));
        assertEquals("2", givenUp.property(TransactionalMessages.PROPERTY_TRANSACTION_CHECK_TIMES));
        assertEquals("body-tx0", new String(givenUp.body(), StandardCharsets.UTF_8));
        assertEquals(1, f.counters.byTopic().get("TopicA").givenUp());
        assertEquals(List.of("TopicA"), f.pendingRemoved);
        assertEquals(0, f.counters.byTopic().get("TopicA").oldestUndecidedAgeMs(), "nothing undecided left");

        f.advance(30_000);
        assertEquals(0, f.run(scan).checked(), "given up: not asked again");

        long halfEnd = f.halfQueueEnd();
        ResumeCheckHalfMessageProcessor resume = new ResumeCheckHalfMessageProcessor(f.store, f.decisions,
            CheckFixture.STORE_HOST, () -> true);
        RemotingCommand request = RemotingCommand.request(RequestCode.RESUME_CHECK_HALF_MESSAGE);
        request.putExtField("msgId", givenUp.offsetMsgId());
        RemotingCommand response = resume.processRequest(null, request).join();
        assertEquals(0, response.code(), response.remark());
        f.settle();
        assertEquals(halfEnd + 1, f.halfQueueEnd());
        assertEquals("0", f.halfRecord(halfEnd).property(TransactionalMessages.PROPERTY_TRANSACTION_CHECK_TIMES));

        f.advance(30_000);
        assertEquals(1, f.run(scan).checked(), "asked again after the resume");
        assertEquals("1", f.halfRecord(halfEnd + 1).property(TransactionalMessages.PROPERTY_TRANSACTION_CHECK_TIMES));
    }

    @Test
    void aHalfMessageOlderThanFileReservedTimeIsGivenUp() {
        f.putHalf("tx0", Map.of());
        f.advance(3_600_000L + 1);
        HalfQueueScan.Report report = f.run(f.scan(new CheckSettings(6_000, 30_000, 15, 1)));
        assertEquals(1, report.givenUp());
        assertEquals(0, report.checked());
    }

    @Test
    void resumeRefusesWhatIsNotAHalfMessage() {
        f.putOpMarker("0,", "d");
        StoredMessage marker = f.store.lookMessageByOffset(
            f.store.getCommitLogOffsetInQueue(TransactionalMessages.OP_HALF_TOPIC, 0, 0));
        ResumeCheckHalfMessageProcessor resume = new ResumeCheckHalfMessageProcessor(f.store, f.decisions,
            CheckFixture.STORE_HOST, () -> true);
        RemotingCommand request = RemotingCommand.request(RequestCode.RESUME_CHECK_HALF_MESSAGE);
        request.putExtField("msgId", marker.offsetMsgId());
        RemotingCommand response = resume.processRequest(null, request).join();
        assertEquals(1, response.code());
        assertTrue(response.remark().startsWith(ResumeCheckHalfMessageProcessor.PUT_FAILED), response.remark());
        assertTrue(response.remark().contains("not a transaction half message"), response.remark());

        request.putExtField("msgId", "7F00000100002A9F00000000FFFF0000");
        response = resume.processRequest(null, request).join();
        assertEquals(1, response.code());
        assertTrue(response.remark().contains("no message"), response.remark());
    }

    @Test
    void theScanStartsFromRocketMqsOffsetsAndCommitsItsOwnInConsumerOffsetJson() throws Exception {
        f.putHalf("tx0", Map.of());
        f.putHalf("tx1", Map.of());
        // as a RocketMQ broker left them: tx0 behind the scan already
        f.offsets.commitOffset("127.0.0.1", TransactionalMessages.SCAN_GROUP, TransactionalMessages.HALF_TOPIC, 0, 1);
        f.putOpMarker("0,", "d");
        f.advance(10_000);
        HalfQueueScan.Report report = f.run(f.scan(SETTINGS));
        assertEquals(1, report.checked());
        assertEquals("tx1", f.newRequests().get(0).extFields().get("msgId"));
        f.offsets.persist();
        String json = Files.readString(dir.resolve("config/consumerOffset.json"));
        String compact = json.replaceAll("\\s", "");
        assertTrue(compact.contains("\"RMQ_SYS_TRANS_HALF_TOPIC@CID_RMQ_SYS_TRANS\":{\"0\":2}"), json);
        assertTrue(compact.contains("\"RMQ_SYS_TRANS_OP_HALF_TOPIC@CID_RMQ_SYS_TRANS\":{\"0\":1}"), json);
    }
}
