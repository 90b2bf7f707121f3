package io.basalt.it.transaction;

import static io.basalt.it.transaction.TransactionBroker.CHECK_MAX_TOPIC;
import static io.basalt.it.transaction.TransactionBroker.key;
import static io.basalt.it.transaction.TransactionBroker.message;
import static io.basalt.it.transaction.TransactionBroker.props;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.client.producer.TransactionSendResult;
import org.apache.rocketmq.common.message.MessageClientExt;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code transactionCheckMax=2} with the official 5.2.0 client: a transaction that stays unknown is checked twice,
 * then given up into TRANS_CHECK_MAX_TIME_TOPIC (neither committed nor rolled back, and checked no more); resumed
 * with RESUME_CHECK_HALF_MESSAGE (DefaultMQAdminExt.resumeCheckHalfMessage: the 5.2.0 mqadmin has no subcommand
 * for it) it is checked again from a count of 0, and its COMMIT is delivered once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CheckMaxTest {
    private static final String TOPIC = "TxCheckMaxTopic";

    @TempDir
    static Path dir;
    private TransactionBroker broker;
    private TransactionMQProducer producer;
    private Received received;

    @BeforeAll
    void start() throws Exception {
        broker = TransactionBroker.start(dir.resolve("broker"), Map.of("transactionCheckMax", "2"));
        broker.createTopic(TOPIC);
        broker.closeClients();
    }

    @BeforeEach
    void openClients() throws Exception {
        producer = broker.producer("pg-tx-max", "p");
        received = new Received();
        broker.consumer(key("cg-tx-max"), TOPIC, received);
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

    /** Sends {@code key} unknown, waits until it was given up, and returns its record in TRANS_CHECK_MAX_TIME_TOPIC. */
    private MessageExt giveUp(String key, TransactionSendResult[] sent) throws Exception {
        broker.script.local(key, LocalTransactionState.UNKNOW);
        TransactionSendResult r = producer.sendMessageInTransaction(message(TOPIC, key), null);
        assertEquals(SendStatus.SEND_OK, r.getSendStatus());
        sent[0] = r;
        await().atMost(Duration.ofSeconds(60)).until(() -> broker.script.checkCount(key) >= 2);
        AtomicReference<MessageExt> given = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            List<MessageExt> found = broker.stored(CHECK_MAX_TOPIC, 1).stream()
                .filter(m -> key.equals(m.getKeys())).toList();
            if (found.size() > 1) {
                throw new AssertionError("given up twice: " + found);
            }
            given.set(found.isEmpty() ? null : found.get(0));
            return given.get() != null;
        });
        broker.awaitCheckScanPassed();
        broker.fence(TOPIC, received);
        assertEquals(List.of("1", "2"), broker.script.checksOf(key).stream().map(ScriptedListener.Check::checkTimes).toList(),
            "checks of " + key + " with transactionCheckMax=2, none after it was given up");
        assertEquals(0, received.count(key), "a given-up transaction is not committed");
        assertEquals(List.of(), broker.stored(TOPIC, key));
        MessageExt m = given.get();
        assertEquals(TOPIC, m.getProperty("REAL_TOPIC"), () -> props(m).toString());
        assertEquals(r.getMsgId(), m.getProperty("UNIQ_KEY"));
        assertEquals("pg-tx-max", m.getProperty("PGROUP"));
        return m;
    }

    /** After the resume: checked again (count from 0, so TRANSACTION_CHECK_TIMES 1), committed, delivered once. */
    private void assertResumedAndCommitted(String key, TransactionSendResult sent) throws Exception {
        await().atMost(Duration.ofSeconds(60)).until(() -> received.count(key) > 0);
        broker.awaitCheckScanPassed();
        broker.fence(TOPIC, received);
        assertEquals(List.of("1", "2", "1"), broker.script.checksOf(key).stream().map(ScriptedListener.Check::checkTimes).toList(),
            "checks of " + key + ": two, given up, resumed, one more that committed");
        assertEquals(1, received.count(key), "deliveries of " + key);
        assertEquals(sent.getMsgId(), received.of(key).get(0).getMsgId());
        assertEquals(1, broker.stored(TOPIC, key).size());
    }

    @Test
    void aTransactionCheckedTooOftenIsGivenUpAndCanBeResumedByItsOffsetMessageId() throws Exception {
        double givenUpBefore = Math.max(0, broker.metric("basalt_transaction_given_up_total"));
        String key = key("given-up");
        TransactionSendResult[] sent = new TransactionSendResult[1];
        MessageExt given = giveUp(key, sent);
        double givenUp = broker.metric("basalt_transaction_given_up_total");
        assertTrue(givenUp >= givenUpBefore + 1, "basalt_transaction_given_up_total went from " + givenUpBefore
            + " to " + givenUp + " (-1: not exported)");

        broker.script.checks(key, LocalTransactionState.COMMIT_MESSAGE);
        assertTrue(broker.admin().resumeCheckHalfMessage(((MessageClientExt) given).getOffsetMsgId()),
            "RESUME_CHECK_HALF_MESSAGE by the offsetMsgId of the given-up record");
        assertResumedAndCommitted(key, sent[0]);
    }

    @Test
    void aGivenUpTransactionCanBeResumedByTopicAndMessageId() throws Exception {
        String key = key("given-up-by-key");
        TransactionSendResult[] sent = new TransactionSendResult[1];
        giveUp(key, sent);
        broker.script.checks(key, LocalTransactionState.COMMIT_MESSAGE);
        assertTrue(broker.admin().resumeCheckHalfMessage(CHECK_MAX_TOPIC, sent[0].getMsgId()),
            "RESUME_CHECK_HALF_MESSAGE of the record the UNIQ_KEY finds in " + CHECK_MAX_TOPIC);
        assertResumedAndCommitted(key, sent[0]);
    }
}
