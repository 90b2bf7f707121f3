package io.basalt.it.transaction;

import static io.basalt.it.transaction.TransactionBroker.HALF_TOPIC;
import static io.basalt.it.transaction.TransactionBroker.key;
import static io.basalt.it.transaction.TransactionBroker.message;
import static io.basalt.it.transaction.TransactionBroker.props;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.client.producer.TransactionSendResult;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.sysflag.MessageSysFlag;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.header.EndTransactionRequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official 5.2.0 TransactionMQProducer and DefaultMQPushConsumer against a broker process: a committed
 * transaction is delivered exactly once, with the user's properties and RocketMQ's send result; a rolled-back one
 * never; an unknown one is settled by the back-check, which is not asked again once it answered; END_TRANSACTION
 * requests that name the wrong producer group or offsets, or decide a transaction a second time, change nothing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CommitAndRollbackTest {
    private static final String TOPIC = "TxTopic";
    private static final String GROUP = "pg-tx";
    private static final String TOPIC_LABEL = "topic=\"" + TOPIC + "\"";

    @TempDir
    static Path dir;
    private TransactionBroker broker;
    private TransactionMQProducer producer;
    private Received received;

    @BeforeAll
    void start() throws Exception {
        broker = TransactionBroker.start(dir.resolve("broker"), Map.of());
        broker.createTopic(TOPIC);
        broker.closeClients();
    }

    @BeforeEach
    void openClients() throws Exception {
        producer = broker.producer(GROUP, "p1");
        received = new Received();
        broker.consumer(key("cg-tx"), TOPIC, received);
    }

    @AfterEach
    void closeClients() {
        broker.closeClients();
    }

    @AfterAll
    void stop() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    /** queryMsgByKey on the user's topic (RocketMQ's client throws code 208 for "no message"). */
    private List<MessageExt> queryByKey(String key) throws Exception {
        try {
            return broker.admin().queryMessage(TOPIC, key, 32, 0, Long.MAX_VALUE).getMessageList();
        } catch (MQClientException e) {
            if (e.getResponseCode() == 208) {
                return List.of();
            }
            throw e;
        }
    }

    private TransactionSendResult send(String key, LocalTransactionState local) throws Exception {
        broker.script.local(key, local);
        TransactionSendResult r = producer.sendMessageInTransaction(message(TOPIC, key), null);
        assertEquals(SendStatus.SEND_OK, r.getSendStatus(), key);
        assertEquals(local, r.getLocalTransactionState(), key);
        return r;
    }

    /** The witness and the fences: every check the broker was going to make and every delivery have happened. */
    private void settle() throws Exception {
        broker.awaitCheckScanPassed();
        broker.fence(TOPIC, received);
    }

    @Test
    void aCommittedTransactionIsDeliveredExactlyOnceWithTheUsersPropertiesAndRocketMqsSendResult() throws Exception {
        double committedBefore = Math.max(0, broker.metric("basalt_transaction_committed_total", TOPIC_LABEL));
        Map<String, TransactionSendResult> sent = new LinkedHashMap<>();
        for (int i = 0; i < 40; i++) {
            String key = key("commit");
            broker.script.local(key, LocalTransactionState.COMMIT_MESSAGE);
            var m = message(TOPIC, key);
            m.putUserProperty("order", Integer.toString(i));
            TransactionSendResult r = producer.sendMessageInTransaction(m, null);
            assertEquals(SendStatus.SEND_OK, r.getSendStatus());
            assertEquals(LocalTransactionState.COMMIT_MESSAGE, r.getLocalTransactionState());
            sent.put(key, r);
        }
        List<String> keys = new ArrayList<>(sent.keySet());
        await().atMost(Duration.ofSeconds(60)).until(() -> received.hasAll(keys));
        settle();

        List<MessageExt> stored = broker.stored(TOPIC, TransactionBroker.QUEUES);
        for (int i = 0; i < keys.size(); i++) {
            String key = keys.get(i);
            TransactionSendResult r = sent.get(key);
            SendResult half = broker.halfSend(key);
            assertNotNull(half, "the send hook saw the half send of " + key);
            assertEquals(r.getMsgId(), r.getTransactionId(), "transactionId is the UNIQ_KEY, as RocketMQ answers it");
            assertEquals(half.getQueueOffset(), r.getQueueOffset());
            assertNotNull(half.getOffsetMsgId(), "the half send answers the half record's offsetMsgId");

            MessageExt halfRecord = broker.admin().viewMessage(half.getOffsetMsgId());
            assertEquals(HALF_TOPIC, halfRecord.getTopic(), "offsetMsgId names the half record");
            assertEquals(0, halfRecord.getQueueId());
            assertEquals(r.getQueueOffset(), halfRecord.getQueueOffset(), "queueOffset is the half queue's offset");
            assertEquals(TOPIC, halfRecord.getProperty("REAL_TOPIC"), () -> props(halfRecord).toString());
            assertEquals(Integer.toString(r.getMessageQueue().getQueueId()), halfRecord.getProperty("REAL_QID"));
            assertEquals(r.getMsgId(), halfRecord.getProperty("__transactionId__"));
            assertEquals(r.getMsgId(), halfRecord.getProperty("UNIQ_KEY"));
            assertEquals(GROUP, halfRecord.getProperty("PGROUP"));
            assertEquals("true", halfRecord.getProperty("TRAN_MSG"));
            assertEquals(0, halfRecord.getSysFlag() & MessageSysFlag.TRANSACTION_ROLLBACK_TYPE,
                "the half record's transaction bits are reset, as RocketMQ stores it");

            List<MessageExt> got = received.of(key);
            assertEquals(1, got.size(), "deliveries of " + key);
            MessageExt m = got.get(0);
            assertEquals(TOPIC, m.getTopic());
            assertEquals(r.getMessageQueue().getQueueId(), m.getQueueId(), "the queue the producer chose");
            assertEquals(r.getMsgId(), m.getMsgId(), "the client's message id");
            assertEquals(r.getMsgId(), m.getTransactionId(), "the consumer sees the transaction id (TRAN_MSG=true kept)");
            assertEquals(Integer.toString(i), m.getUserProperty("order"));
            assertEquals("TagTx", m.getTags());
            assertEquals(key, new String(m.getBody(), StandardCharsets.UTF_8));
            assertEquals(MessageSysFlag.TRANSACTION_COMMIT_TYPE, m.getSysFlag() & MessageSysFlag.TRANSACTION_ROLLBACK_TYPE,
                "a committed record");
            assertEquals(halfRecord.getCommitLogOffset(), m.getPreparedTransactionOffset(),
                "the committed record points at its half record");
            assertEquals(GROUP, m.getProperty("PGROUP"));
            assertEquals(0, broker.script.checkCount(key), "a transaction committed at once is never checked");
            assertEquals(1, stored.stream().filter(s -> key.equals(s.getKeys())).count(), "records of " + key + " in " + TOPIC);
        }

        double committed = broker.metric("basalt_transaction_committed_total", TOPIC_LABEL);
        assertEquals(committedBefore + keys.size(), committed, "basalt_transaction_committed_total{" + TOPIC_LABEL + "}");

        for (String key : keys.subList(0, 3)) {
            List<MessageExt> found = queryByKey(key);
            assertEquals(1, found.size(), "queryMsgByKey " + key + " finds the committed message, not a second copy");
            assertEquals(TOPIC, found.get(0).getTopic());
            assertEquals(sent.get(key).getMsgId(), found.get(0).getMsgId());
        }
        String key = keys.get(3);
        String out = TransactionBroker.mqadmin("queryMsgByKey", "-n", broker.address(), "-t", TOPIC, "-k", key);
        assertEquals(1, out.split(sent.get(key).getMsgId(), -1).length - 1, out);
    }

    @Test
    void aRolledBackTransactionIsNeverDelivered() throws Exception {
        double rolledBackBefore = Math.max(0, broker.metric("basalt_transaction_rolled_back_total", TOPIC_LABEL));
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String key = key("rollback");
            send(key, LocalTransactionState.ROLLBACK_MESSAGE);
            keys.add(key);
        }
        settle();
        for (String key : keys) {
            assertEquals(0, received.count(key), "deliveries of rolled-back " + key);
            assertEquals(List.of(), broker.stored(TOPIC, key), "records of rolled-back " + key + " in " + TOPIC);
            assertEquals(0, broker.script.checkCount(key), "a transaction rolled back at once is never checked");
            assertEquals(List.of(), queryByKey(key));
        }
        double rolledBack = broker.metric("basalt_transaction_rolled_back_total", TOPIC_LABEL);
        assertEquals(rolledBackBefore + keys.size(), rolledBack, "basalt_transaction_rolled_back_total{" + TOPIC_LABEL + "}");
    }

    @Test
    void anUnknownTransactionIsCommittedByTheBackCheckAndNotAskedAgain() throws Exception {
        Map<String, TransactionSendResult> secondCheck = new LinkedHashMap<>();
        Map<String, TransactionSendResult> firstCheck = new LinkedHashMap<>();
        for (int i = 0; i < 3; i++) {
            String key = key("unknown-then-commit");
            broker.script.checks(key, LocalTransactionState.UNKNOW, LocalTransactionState.COMMIT_MESSAGE);
            secondCheck.put(key, send(key, LocalTransactionState.UNKNOW));
            String other = key("commit-on-check");
            broker.script.checks(other, LocalTransactionState.COMMIT_MESSAGE);
            firstCheck.put(other, send(other, LocalTransactionState.UNKNOW));
        }
        List<String> all = new ArrayList<>(secondCheck.keySet());
        all.addAll(firstCheck.keySet());
        await().atMost(Duration.ofSeconds(90)).until(() -> received.hasAll(all));
        settle();

        Map<String, TransactionSendResult> sent = new LinkedHashMap<>(secondCheck);
        sent.putAll(firstCheck);
        for (Map.Entry<String, TransactionSendResult> e : sent.entrySet()) {
            String key = e.getKey();
            List<String> expectedTimes = secondCheck.containsKey(key) ? List.of("1", "2") : List.of("1");
            List<ScriptedListener.Check> checks = broker.script.checksOf(key);
            assertEquals(expectedTimes, checks.stream().map(ScriptedListener.Check::checkTimes).toList(),
                "TRANSACTION_CHECK_TIMES of each check of " + key + ", and no check after the answer");
            for (ScriptedListener.Check c : checks) {
                assertEquals(e.getValue().getTransactionId(), c.transactionId(), "the check names the transaction");
                assertEquals(e.getValue().getMsgId(), c.uniqKey(), "the check carries the client's message id");
                MessageExt copy = broker.admin().viewMessage(c.msgId());
                assertEquals(HALF_TOPIC, copy.getTopic(), "the check's message id is the offsetMsgId of a half record");
                assertEquals(c.checkTimes(), copy.getProperty("TRANSACTION_CHECK_TIMES"),
                    "the check copy carries the count the check was sent with");
            }
            assertEquals(1, received.count(key), "deliveries of " + key);
            MessageExt m = received.of(key).get(0);
            assertEquals(e.getValue().getMsgId(), m.getMsgId());
            assertEquals(e.getValue().getMessageQueue().getQueueId(), m.getQueueId(), "the queue the producer chose");
            assertEquals(1, broker.stored(TOPIC, key).size(), "records of " + key + " in " + TOPIC);
        }
    }

    @Test
    void anUnknownTransactionIsRolledBackByTheBackCheckAndNotAskedAgain() throws Exception {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String key = key("unknown-then-rollback");
            broker.script.checks(key, LocalTransactionState.ROLLBACK_MESSAGE);
            send(key, LocalTransactionState.UNKNOW);
            keys.add(key);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> keys.stream().allMatch(k -> broker.script.checkCount(k) > 0));
        settle();
        for (String key : keys) {
            assertEquals(1, broker.script.checkCount(key), "checks of " + key + " (answered ROLLBACK at the first)");
            assertEquals(0, received.count(key), "deliveries of rolled-back " + key);
            assertEquals(List.of(), broker.stored(TOPIC, key));
        }
    }

    @Test
    void aTransactionWithACheckImmunityTimeIsNotCheckedBeforeIt() throws Exception {
        String key = key("immune");
        broker.script.local(key, LocalTransactionState.UNKNOW);
        broker.script.checks(key, LocalTransactionState.COMMIT_MESSAGE);
        var m = message(TOPIC, key);
        m.putUserProperty("CHECK_IMMUNITY_TIME_IN_SECONDS", "4");
        TransactionSendResult r = producer.sendMessageInTransaction(m, null);
        assertEquals(SendStatus.SEND_OK, r.getSendStatus());
        await().atMost(Duration.ofSeconds(60)).until(() -> received.count(key) > 0);
        settle();
        List<ScriptedListener.Check> checks = broker.script.checksOf(key);
        assertEquals(List.of("1"), checks.stream().map(ScriptedListener.Check::checkTimes).toList(),
            "checks of " + key + " (committed at the first)");
        long waited = checks.get(0).atMs() - checks.get(0).bornMs();
        assertTrue(waited >= 4000, "the first check came " + waited + " ms after the send, before the immunity of 4 s");
        assertEquals(1, received.count(key));
        assertEquals(1, broker.stored(TOPIC, key).size());
    }

    /** The END_TRANSACTION the client sent (or would send) for {@code r}, as RocketMQ 5.2.0 builds it. */
    private EndTransactionRequestHeader endHeader(String key, TransactionSendResult r, int commitOrRollback) throws Exception {
        SendResult half = broker.halfSend(key);
        EndTransactionRequestHeader h = new EndTransactionRequestHeader();
        h.setProducerGroup(GROUP);
        h.setTranStateTableOffset(r.getQueueOffset());
        h.setCommitLogOffset(MessageDecoder.decodeMessageId(half.getOffsetMsgId()).getOffset());
        h.setCommitOrRollback(commitOrRollback);
        h.setFromTransactionCheck(false);
        h.setMsgId(r.getMsgId());
        h.setTransactionId(r.getTransactionId());
        h.setBrokerName(broker.process().brokerName());
        return h;
    }

    @Test
    void aSecondDecisionForADecidedTransactionChangesNothing() throws Exception {
        double duplicatesBefore = Math.max(0, broker.metric("basalt_transaction_duplicate_decisions_total"));
        String key = key("decided-twice");
        TransactionSendResult r = send(key, LocalTransactionState.COMMIT_MESSAGE);
        await().atMost(Duration.ofSeconds(60)).until(() -> received.count(key) > 0);

        EndTransactionRequestHeader again = endHeader(key, r, MessageSysFlag.TRANSACTION_COMMIT_TYPE);
        broker.clientApi().endTransactionOneway(broker.address(), again, null, 3000);
        broker.invoke(RemotingCommand.createRequestCommand(RequestCode.END_TRANSACTION, again));
        EndTransactionRequestHeader rollback = endHeader(key, r, MessageSysFlag.TRANSACTION_ROLLBACK_TYPE);
        broker.invoke(RemotingCommand.createRequestCommand(RequestCode.END_TRANSACTION, rollback));
        settle();

        assertEquals(1, received.count(key), "deliveries after the commit was repeated (RocketMQ writes it twice)");
        assertEquals(1, broker.stored(TOPIC, key).size(), "records of " + key + " in " + TOPIC);
        assertEquals(0, broker.script.checkCount(key));
        double duplicates = broker.metric("basalt_transaction_duplicate_decisions_total");
        assertTrue(duplicates >= duplicatesBefore + 3, "basalt_transaction_duplicate_decisions_total went from "
            + duplicatesBefore + " to " + duplicates + " (-1: not exported)");
    }

    @Test
    void anEndTransactionNamingAnotherGroupOrWrongOffsetsCommitsNothingAndIsCounted() throws Exception {
        String groupReason = "reason=\"producer_group\"";
        String offsetReason = "reason=\"state_table_offset\"";
        double groupBefore = Math.max(0, broker.metric("basalt_transaction_end_refused_total", groupReason));
        double offsetBefore = Math.max(0, broker.metric("basalt_transaction_end_refused_total", offsetReason));
        String key = key("forged");
        broker.script.checks(key, LocalTransactionState.ROLLBACK_MESSAGE);
        TransactionSendResult r = send(key, LocalTransactionState.UNKNOW);

        EndTransactionRequestHeader forged = endHeader(key, r, MessageSysFlag.TRANSACTION_COMMIT_TYPE);
        forged.setProducerGroup("pg-forged");
        broker.clientApi().endTransactionOneway(broker.address(), forged, null, 3000);

        RemotingCommand wrongGroup = broker.invoke(RemotingCommand.createRequestCommand(RequestCode.END_TRANSACTION, forged));
        assertEquals(ResponseCode.SYSTEM_ERROR, wrongGroup.getCode(), "a two-way END_TRANSACTION of another group: "
            + wrongGroup.getRemark());
        assertTrue(String.valueOf(wrongGroup.getRemark()).contains("producer group"), wrongGroup.getRemark());

        EndTransactionRequestHeader wrongOffset = endHeader(key, r, MessageSysFlag.TRANSACTION_COMMIT_TYPE);
        wrongOffset.setTranStateTableOffset(r.getQueueOffset() + 1000);
        RemotingCommand offset = broker.invoke(RemotingCommand.createRequestCommand(RequestCode.END_TRANSACTION, wrongOffset));
        assertEquals(ResponseCode.SYSTEM_ERROR, offset.getCode(), "a wrong tranStateTableOffset: " + offset.getRemark());

        await().atMost(Duration.ofSeconds(60)).until(() -> broker.script.checkCount(key) > 0);
        settle();
        assertEquals(1, broker.script.checkCount(key), "the transaction was still undecided when checked, then rolled back");
        assertEquals(0, received.count(key), "deliveries of " + key + " after forged commits");
        assertEquals(List.of(), broker.stored(TOPIC, key));
        double group = broker.metric("basalt_transaction_end_refused_total", groupReason);
        assertTrue(group >= groupBefore + 2, "basalt_transaction_end_refused_total{" + groupReason + "} went from "
            + groupBefore + " to " + group + " (-1: not exported)");
        double offsets = broker.metric("basalt_transaction_end_refused_total", offsetReason);
        assertTrue(offsets >= offsetBefore + 1, "basalt_transaction_end_refused_total{" + offsetReason + "} went from "
            + offsetBefore + " to " + offsets + " (-1: not exported)");
    }
}
