package io.basalt.it.transaction;

import static io.basalt.it.transaction.TransactionBroker.key;
import static io.basalt.it.transaction.TransactionBroker.message;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.client.producer.TransactionSendResult;
import org.apache.rocketmq.remoting.protocol.body.ProducerConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who answers a back-check, with official 5.2.0 producers against a broker process: a producer that dies after
 * its half send (shut down, or its JVM killed) is replaced by a new producer of the same group, which answers; in
 * a group of two, the check goes to the producer that sent the half message while it lives, and to the other one
 * when it is gone.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CheckedProducerTest {
    private static final String TOPIC = "TxCheckedTopic";

    @TempDir
    static Path dir;
    private TransactionBroker broker;
    private Received received;

    @BeforeAll
    void start() throws Exception {
        broker = TransactionBroker.start(dir.resolve("broker"), Map.of());
        broker.createTopic(TOPIC);
        broker.closeClients();
    }

    @BeforeEach
    void openClients() throws Exception {
        received = new Received();
        broker.consumer(key("cg-tx-checked"), TOPIC, received);
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

    /** {@code producer} commits one transaction, so it has the broker in its routes and heartbeats to it. */
    private void warmUp(TransactionMQProducer producer) throws Exception {
        String key = key("warm-up");
        assertEquals(SendStatus.SEND_OK, producer.sendMessageInTransaction(message(TOPIC, key), null).getSendStatus());
        await().atMost(Duration.ofSeconds(60)).until(() -> received.count(key) > 0);
    }

    /** Waits until the broker lists {@code count} connections of {@code group} (GET_PRODUCER_CONNECTION_LIST). */
    private void awaitProducers(String group, int count) {
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
            ProducerConnection c = broker.admin().examineProducerConnectionInfo(group, TOPIC);
            return c.getConnectionSet().size() == count;
        });
    }

    private TransactionSendResult sendUndecided(TransactionMQProducer producer, String key) throws Exception {
        broker.script.local(key, LocalTransactionState.UNKNOW);
        TransactionSendResult r = producer.sendMessageInTransaction(message(TOPIC, key), null);
        assertEquals(SendStatus.SEND_OK, r.getSendStatus());
        return r;
    }

    private List<String> answeredBy(String key) {
        return broker.script.checksOf(key).stream().map(ScriptedListener.Check::producer).toList();
    }

    /** {@code key} is delivered exactly once and was never checked again after {@code answerer} committed it. */
    private void assertCommittedOnceBy(String key, String answerer) throws Exception {
        await().atMost(Duration.ofSeconds(90)).until(() -> received.count(key) > 0);
        broker.awaitCheckScanPassed();
        broker.fence(TOPIC, received);
        List<String> by = answeredBy(key);
        assertTrue(!by.isEmpty() && by.get(by.size() - 1).equals(answerer), "checks of " + key + " answered by " + by);
        assertEquals(1, received.count(key), "deliveries of " + key);
        assertEquals(1, broker.stored(TOPIC, key).size(), "records of " + key);
    }

    /**
     * The checks of {@code key} this JVM answered were counted 1, 2, 3...: no check was counted while the group had
     * no producer to send it to (RocketMQ counts those too, and gives up sooner).
     */
    private void assertNoCheckCountedWithoutAProducer(String key) {
        List<String> times = broker.script.checksOf(key).stream().map(ScriptedListener.Check::checkTimes).toList();
        for (int i = 0; i < times.size(); i++) {
            assertEquals(Integer.toString(i + 1), times.get(i), "TRANSACTION_CHECK_TIMES of the checks of " + key + ": " + times);
        }
    }

    @Test
    void aNewProducerOfTheGroupAnswersForOneThatShutDownAfterItsHalfSend() throws Exception {
        String group = "pg-replaced";
        TransactionMQProducer first = broker.producer(group, "first");
        String key = key("orphan");
        broker.script.checks(key, LocalTransactionState.COMMIT_MESSAGE);
        broker.script.mute("first");
        sendUndecided(first, key);
        first.shutdown();

        TransactionMQProducer second = broker.producer(group, "second");
        warmUp(second);
        assertCommittedOnceBy(key, "second");
        assertNoCheckCountedWithoutAProducer(key);
    }

    @Test
    void aNewProducerOfTheGroupAnswersForOneWhoseJvmWasKilledAfterItsHalfSend() throws Exception {
        String group = "pg-killed";
        String key = key("killed-orphan");
        broker.script.checks(key, LocalTransactionState.COMMIT_MESSAGE);
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx128m",
            "-cp", System.getProperty("java.class.path"), DyingProducer.class.getName(),
            broker.address(), group, TOPIC, key);
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<String> output = new ArrayList<>();
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String line;
            while ((line = lines.readLine()) != null && !line.startsWith(DyingProducer.SENT)) {
                output.add(line);
            }
            assertTrue(line != null && line.endsWith(" SEND_OK"), "the producer JVM sent its half message: " + line
                + " after " + output);
        } finally {
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the producer JVM died");
            child.getInputStream().close();
        }

        TransactionMQProducer replacement = broker.producer(group, "replacement");
        warmUp(replacement);
        assertCommittedOnceBy(key, "replacement");
    }

    @Test
    void inAGroupOfTwoTheCheckGoesToTheProducerThatSentTheHalfMessage() throws Exception {
        String group = "pg-pair";
        TransactionMQProducer one = broker.producer(group, "one");
        TransactionMQProducer two = broker.producer(group, "two");
        warmUp(one);
        warmUp(two);
        awaitProducers(group, 2);
        List<String> byOne = new ArrayList<>();
        List<String> byTwo = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String k1 = key("pair-one");
            broker.script.checks(k1, LocalTransactionState.COMMIT_MESSAGE);
            sendUndecided(one, k1);
            byOne.add(k1);
            String k2 = key("pair-two");
            broker.script.checks(k2, LocalTransactionState.COMMIT_MESSAGE);
            sendUndecided(two, k2);
            byTwo.add(k2);
        }
        for (String k : byOne) {
            assertCommittedOnceBy(k, "one");
            assertEquals(List.of("one"), answeredBy(k), "checks of " + k + ", sent by producer one, which lives");
        }
        for (String k : byTwo) {
            assertCommittedOnceBy(k, "two");
            assertEquals(List.of("two"), answeredBy(k), "checks of " + k + ", sent by producer two, which lives");
        }
    }

    @Test
    void inAGroupOfTwoTheOtherProducerAnswersWhenTheSenderIsGone() throws Exception {
        String group = "pg-pair-gone";
        TransactionMQProducer sender = broker.producer(group, "sender");
        TransactionMQProducer other = broker.producer(group, "other");
        warmUp(sender);
        warmUp(other);
        awaitProducers(group, 2);
        String key = key("sender-gone");
        broker.script.checks(key, LocalTransactionState.COMMIT_MESSAGE);
        broker.script.mute("sender");
        sendUndecided(sender, key);
        sender.shutdown();
        assertCommittedOnceBy(key, "other");
        assertNoCheckCountedWithoutAProducer(key);
    }
}
