package io.basalt.it.transaction;

import static io.basalt.it.transaction.TransactionBroker.CHECK_MAX_TOPIC;
import static io.basalt.it.transaction.TransactionBroker.HALF_TOPIC;
import static io.basalt.it.transaction.TransactionBroker.OP_TOPIC;
import static io.basalt.it.transaction.TransactionBroker.brokerCode;
import static io.basalt.it.transaction.TransactionBroker.brokerRemark;
import static io.basalt.it.transaction.TransactionBroker.key;
import static io.basalt.it.transaction.TransactionBroker.message;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageClientIDSetter;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.sysflag.MessageSysFlag;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeaderV2;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a broker refuses about transactions, with the official 5.2.0 client and hand-made requests built with its
 * remoting classes: every half message when {@code rejectTransactionMessage=true} (NO_PERMISSION); a half message
 * carrying a delay level or a timer property (RocketMQ would hand it to the schedule or the timer and lose the
 * transaction); client sends to the transaction system topics (NO_PERMISSION); deleting the half or op topic.
 * Nothing refused is stored.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RefusalTest {
    private static final String TOPIC = "TxRefusedTopic";
    private static final String GROUP = "pg-tx-refused";

    @TempDir
    static Path dir;
    private TransactionBroker broker;
    private TransactionMQProducer producer;

    @BeforeAll
    void start() throws Exception {
        broker = TransactionBroker.start(dir.resolve("broker"), Map.of());
        broker.createTopic(TOPIC);
        broker.closeClients();
    }

    @BeforeEach
    void openClients() throws Exception {
        producer = broker.producer(GROUP, "p");
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

    /** A SEND_MESSAGE_V2 as the 5.2.0 client builds it, to {@code topic} queue 0, with {@code properties} added. */
    private static RemotingCommand sendRequest(String topic, String key, int sysFlag, Map<String, String> properties) {
        Map<String, String> all = new HashMap<>();
        all.put("KEYS", key);
        all.put("TAGS", "TagTx");
        all.put("WAIT", "true");
        all.put("UNIQ_KEY", MessageClientIDSetter.createUniqID());
        all.putAll(properties);
        SendMessageRequestHeader h = new SendMessageRequestHeader();
        h.setProducerGroup(GROUP);
        h.setTopic(topic);
        h.setDefaultTopic("TBW102");
        h.setDefaultTopicQueueNums(4);
        h.setQueueId(0);
        h.setSysFlag(sysFlag);
        h.setBornTimestamp(System.currentTimeMillis());
        h.setFlag(0);
        h.setProperties(MessageDecoder.messageProperties2String(all));
        h.setReconsumeTimes(0);
        h.setUnitMode(false);
        h.setBatch(false);
        RemotingCommand request = RemotingCommand.createRequestCommand(RequestCode.SEND_MESSAGE_V2,
            SendMessageRequestHeaderV2.createSendMessageRequestHeaderV2(h));
        request.setBody(key.getBytes(StandardCharsets.UTF_8));
        return request;
    }

    private static Map<String, String> halfProperties() {
        Map<String, String> p = new HashMap<>();
        p.put("TRAN_MSG", "true");
        p.put("PGROUP", GROUP);
        return p;
    }

    /** Nothing of {@code key} in the half topic or the user's topic, after the check scan passed it. */
    private void assertNothingStored(String key) throws Exception {
        broker.awaitCheckScanPassed();
        assertEquals(List.of(), broker.stored(HALF_TOPIC, 1).stream().filter(m -> key.equals(m.getKeys())).toList(),
            "half records of refused " + key);
        assertEquals(List.of(), broker.stored(TOPIC, key), "records of refused " + key + " in " + TOPIC);
        assertEquals(0, broker.script.checkCount(key), "a refused half message is never checked");
    }

    @Test
    @Order(1)
    void aBrokerThatRejectsTransactionMessagesAnswersNoPermission() throws Exception {
        try (TransactionBroker rejecting = TransactionBroker.start(dir.resolve("rejecting"),
            Map.of("rejectTransactionMessage", "true"))) {
            rejecting.createTopic(TOPIC);
            TransactionMQProducer p = rejecting.producer(GROUP, "p");
            String key = key("rejected");
            MQClientException e = assertThrows(MQClientException.class,
                () -> p.sendMessageInTransaction(message(TOPIC, key), null));
            assertEquals(ResponseCode.NO_PERMISSION, brokerCode(e), () -> "the broker's answer: " + e);
            assertTrue(brokerRemark(e).contains("sending transaction message is forbidden"), brokerRemark(e));
            assertFalse(rejecting.script.ranLocally(key), "no local transaction runs for a refused half message");
            assertEquals(SendStatus.SEND_OK, rejecting.plainProducer().send(message(TOPIC, key("plain"))).getSendStatus(),
                "plain messages are still accepted");
        }
    }

    @Test
    @Order(2)
    void aHalfMessageWithADelayLevelIsRefused() throws Exception {
        String key = key("half-delay");
        Map<String, String> p = halfProperties();
        p.put("DELAY", "3");
        RemotingCommand response = broker.invoke(sendRequest(TOPIC, key, MessageSysFlag.TRANSACTION_PREPARED_TYPE, p));
        assertNotEquals(ResponseCode.SUCCESS, response.getCode(), "a half message with DELAY=3: " + response.getRemark());
        assertTrue(String.valueOf(response.getRemark()).contains("DELAY"), "the refusal names DELAY: " + response.getRemark());
        assertNothingStored(key);
    }

    @Test
    @Order(3)
    void aHalfMessageWithATimerPropertyIsRefusedAndItsLocalTransactionNeverRuns() throws Exception {
        Map<String, Consumer<Message>> timers = Map.of(
            "TIMER_DELIVER_MS", m -> m.setDeliverTimeMs(System.currentTimeMillis() + 60_000),
            "TIMER_DELAY_SEC", m -> m.setDelayTimeSec(60),
            "TIMER_DELAY_MS", m -> m.setDelayTimeMs(60_000));
        for (Map.Entry<String, Consumer<Message>> timer : timers.entrySet()) {
            String key = key("half-timer");
            Message m = message(TOPIC, key);
            timer.getValue().accept(m);
            assertTrue(m.getProperties().containsKey(timer.getKey()));
            MQClientException e = assertThrows(MQClientException.class, () -> producer.sendMessageInTransaction(m, null),
                "the official client sends a half message with " + timer.getKey() + " (it only strips DELAY)");
            assertTrue(brokerCode(e) > 0, () -> "refused by the broker: " + e);
            assertTrue(brokerRemark(e).contains(timer.getKey()) || brokerRemark(e).contains("TIMER"),
                "the refusal names the timer property: " + brokerRemark(e));
            assertFalse(broker.script.ranLocally(key), "no local transaction runs for a refused half message");
            assertNothingStored(key);
        }
        // the hand-made request too (sysFlag PREPARED, TIMER_DELIVER_MS)
        String key = key("half-timer-raw");
        Map<String, String> p = halfProperties();
        p.put("TIMER_DELIVER_MS", Long.toString(System.currentTimeMillis() + 60_000));
        RemotingCommand response = broker.invoke(sendRequest(TOPIC, key, MessageSysFlag.TRANSACTION_PREPARED_TYPE, p));
        assertNotEquals(ResponseCode.SUCCESS, response.getCode(), "a half message with TIMER_DELIVER_MS: " + response.getRemark());
        assertNothingStored(key);
    }

    @Test
    @Order(4)
    void clientsCannotSendToTheTransactionSystemTopics() throws Exception {
        for (String topic : List.of(HALF_TOPIC, OP_TOPIC, CHECK_MAX_TOPIC)) {
            MQClientException client = assertThrows(MQClientException.class,
                () -> broker.plainProducer().send(message(topic, key("system"))));
            assertTrue(client.getMessage().contains("forbidden"), "the official client refuses it itself: " + client);

            String key = key("system-raw");
            RemotingCommand response = broker.invoke(sendRequest(topic, key, 0, Map.of()));
            assertEquals(ResponseCode.NO_PERMISSION, response.getCode(), "a hand-made send to " + topic + ": "
                + response.getRemark());
            RemotingCommand half = broker.invoke(sendRequest(topic, key + "-half", MessageSysFlag.TRANSACTION_PREPARED_TYPE,
                halfProperties()));
            assertEquals(ResponseCode.NO_PERMISSION, half.getCode(), "a hand-made half send to " + topic + ": "
                + half.getRemark());
            assertEquals(List.of(), broker.stored(topic, 1).stream()
                .filter(m -> m.getKeys() != null && m.getKeys().startsWith(key)).toList(), "refused sends stored in " + topic);
        }
    }

    @Test
    @Order(5)
    void theHalfAndOpTopicsCannotBeDeletedAndPendingTransactionsSurvive() throws Exception {
        String key = key("pending-over-delete");
        broker.script.local(key, LocalTransactionState.UNKNOW);
        assertEquals(SendStatus.SEND_OK, producer.sendMessageInTransaction(message(TOPIC, key), null).getSendStatus());

        for (String topic : List.of(HALF_TOPIC, OP_TOPIC)) {
            String out = TransactionBroker.mqadmin("deleteTopic", "-n", broker.address(), "-c", "DefaultCluster", "-t", topic);
            assertFalse(out.contains("success"), "mqadmin deleteTopic " + topic + ": " + out);
            assertThrows(Exception.class, () -> broker.admin().deleteTopicInBroker(Set.of(broker.address()), topic),
                "DELETE_TOPIC_IN_BROKER of " + topic);
        }

        broker.script.checks(key, LocalTransactionState.COMMIT_MESSAGE);
        Received received = new Received();
        broker.consumer("cg-tx-refused", TOPIC, received);
        await().atMost(Duration.ofSeconds(60)).until(() -> received.count(key) > 0);
        broker.awaitCheckScanPassed();
        broker.fence(TOPIC, received);
        assertEquals(1, received.count(key), "the transaction pending over the deletion attempts, committed by its check");
        assertEquals(1, broker.stored(TOPIC, key).size());
    }
}
