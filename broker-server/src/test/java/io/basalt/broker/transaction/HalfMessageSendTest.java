package io.basalt.broker.transaction;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.basalt.broker.client.QueueLockManager;
import io.basalt.broker.processor.BrokerCounters;
import io.basalt.broker.processor.SendMessageProcessor;
import io.basalt.broker.processor.SendOutcome;
import io.basalt.broker.processor.SendRequests;
import io.basalt.broker.processor.StoreHost;
import io.basalt.broker.retry.RetryCounts;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.RemotingVersion;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.remoting.protocol.SendMessageRequestHeader;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageTransform;
import io.basalt.store.StoredMessage;
import io.basalt.store.testing.TestStores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The half send through {@link SendMessageProcessor} and {@link HalfMessageTransform}: RocketMQ's half record (bytes
 * of the properties, sysFlag, topic and queue), the send response the client echoes back in END_TRANSACTION, and the
 * sends that are refused.
 */
class HalfMessageSendTest {
    private static final InetSocketAddress BROKER = new InetSocketAddress("127.0.0.1", 10911);
    private static final RequestContext PRODUCER = new RequestContext(null, new InetSocketAddress("127.0.0.1", 45000),
        BROKER, 0);
    /** What TransactionMQProducer 5.2.0 sends for a message with keys and tags. */
    static final String CLIENT_PROPERTIES = "KEYS\u0001k1\u0002TAGS\u0001TagA\u0002UNIQ_KEY\u0001U-1\u0002"
        + "TRAN_MSG\u0001true\u0002PGROUP\u0001pg\u0002WAIT\u0001true\u0002";

    @TempDir
    Path dir;
    MessageStore store;
    TopicConfigManager topics;
    final List<String> halvesStored = new ArrayList<>();

    @BeforeEach
    void open() throws Exception {
        store = TestStores.start(TestStores.config(dir.resolve("store")).build());
        store.addPutTransform(new HalfMessageTransform());
        topics = TopicConfigManager.open(dir.resolve("config"), true, 4);
    }

    @AfterEach
    void close() {
        store.shutdown();
    }

    private SendMessageProcessor processor(boolean rejectTransactionMessage) throws Exception {
        return new SendMessageProcessor(new StoreHost("DefaultCluster", "broker-a", BROKER), () -> true, 64 * 1024,
            store, topics, new BrokerCounters(), SubscriptionGroupManager.open(dir.resolve("config"), true),
            new QueueLockManager(60_000, System::currentTimeMillis), new RetryCounts(), rejectTransactionMessage,
            halvesStored::add);
    }

    static RemotingCommand halfSend(String properties, int queueId) {
        RemotingCommand r = SendRequests.sendV2("T", properties, "hello".getBytes(StandardCharsets.UTF_8));
        r.putExtField("e", Integer.toString(queueId));
        r.putExtField("f", Integer.toString(TransactionalMessages.TRANSACTION_PREPARED_TYPE));
        return r;
    }

    @Test
    void aHalfMessageIsStoredAsRocketMqStoresItAndTheResponseNamesTheHalfRecord() throws Exception {
        SendMessageProcessor send = processor(false);
        long first = store.getMaxPhyOffset();

        RemotingCommand r1 = send.processRequest(PRODUCER, halfSend(CLIENT_PROPERTIES, 2)).get();
        long second = store.getMaxPhyOffset();
        RemotingCommand r2 = send.processRequest(PRODUCER, halfSend(CLIENT_PROPERTIES.replace("U-1", "U-2"), 3)).get();

        assertEquals(ResponseCode.SUCCESS, r1.code(), r1.remark());
        StoredMessage half = store.lookMessageByOffset(first);
        assertEquals(TransactionalMessages.HALF_TOPIC, half.topic());
        assertEquals(0, half.queueId());
        assertEquals(0, half.sysFlag() & 0xC, "transaction bits reset, so the half queue indexes it");
        // RocketMQ's HashMap(128) order for these keys (computed from RocketMQ 5.2.0's map, not from Basalt's code)
        assertEquals("UNIQ_KEY\u0001U-1\u0002CLUSTER\u0001DefaultCluster\u0002PGROUP\u0001pg\u0002"
            + "__transactionId__\u0001U-1\u0002TAGS\u0001TagA\u0002TRAN_MSG\u0001true\u0002KEYS\u0001k1\u0002"
            + "WAIT\u0001true\u0002REAL_TOPIC\u0001T\u0002REAL_QID\u00012\u0002", half.properties());
        assertEquals(half.offsetMsgId(), r1.extFields().get("msgId"), "msgId = offsetMsgId of the half record");
        assertEquals("2", r1.extFields().get("queueId"), "the queue asked for");
        assertEquals("0", r1.extFields().get("queueOffset"), "the half queue's offset");
        assertEquals("U-1", r1.extFields().get("transactionId"));
        assertEquals(ResponseCode.SUCCESS, r2.code(), r2.remark());
        assertEquals(store.lookMessageByOffset(second).offsetMsgId(), r2.extFields().get("msgId"));
        assertEquals("3", r2.extFields().get("queueId"));
        assertEquals("1", r2.extFields().get("queueOffset"));
        assertEquals("U-2", r2.extFields().get("transactionId"));
        assertEquals(List.of("T", "T"), halvesStored);
        await().atMost(ofSeconds(5)).until(() -> store.getMaxOffsetInQueue(TransactionalMessages.HALF_TOPIC, 0) == 2);
        assertEquals(0, store.getMaxOffsetInQueue("T", 2), "nothing in the real topic before the commit");
    }

    @Test
    void theDirectSendPathStoresTheSameRecordAndNamesItsOffsetsWithoutAResponseFrame() throws Exception {
        SendMessageProcessor send = processor(false);
        RemotingCommand request = halfSend(CLIENT_PROPERTIES, 2);
        RemotingCommand viaRemoting = send.processRequest(PRODUCER, request).get();
        long second = store.getMaxPhyOffset();

        SendOutcome direct = send.send(PRODUCER, SendMessageRequestHeader.parse(halfSend(CLIENT_PROPERTIES.replace(
            "U-1", "U-2"), 2)), request.body(), false, RemotingVersion.CURRENT).get();

        assertTrue(direct.stored());
        StoredMessage half = store.lookMessageByOffset(second);
        assertEquals(second, direct.commitLogOffset(), "the half record's CommitLog offset, for EndTransaction");
        assertEquals(half.offsetMsgId(), direct.msgIds());
        assertEquals(2, direct.queueId());
        assertEquals(1, direct.queueOffset(), "the half queue's offset");
        assertEquals("U-2", direct.transactionId());
        StoredMessage first = store.lookMessageByOffset(0);
        assertEquals(first.properties().replace("U-1", "U-2"), half.properties(), "the same record, id aside");
        assertEquals(viaRemoting.extFields().keySet(), direct.toResponse().extFields().keySet());
        assertEquals(List.of("T", "T"), halvesStored);

        SendOutcome refused = send.send(PRODUCER, SendMessageRequestHeader.parse(halfSend(
            CLIENT_PROPERTIES.replace("TRAN_MSG\u0001true\u0002", ""), 0)), request.body(), false,
            RemotingVersion.CURRENT).get();
        assertEquals(ResponseCode.MESSAGE_ILLEGAL, refused.code());
        assertTrue(!refused.stored() && refused.commitLogOffset() == -1 && refused.toResponse().extFields() == null,
            refused.toString());
    }

    @Test
    void aPreparedFlagWithoutTranMsgIsRefused() throws Exception {
        RemotingCommand r = processor(false).processRequest(PRODUCER,
            halfSend(CLIENT_PROPERTIES.replace("TRAN_MSG\u0001true\u0002", ""), 0)).get();

        assertEquals(ResponseCode.MESSAGE_ILLEGAL, r.code());
        assertTrue(r.remark().contains("TRAN_MSG=true"), r.remark());
        assertEquals(0, store.getMaxPhyOffset());
    }

    @Test
    void rejectTransactionMessageRefusesHalfMessages() throws Exception {
        RemotingCommand r = processor(true).processRequest(PRODUCER, halfSend(CLIENT_PROPERTIES, 0)).get();

        assertEquals(ResponseCode.NO_PERMISSION, r.code());
        assertEquals("the broker[127.0.0.1] sending transaction message is forbidden", r.remark());
        assertEquals(0, store.getMaxPhyOffset());
    }

    @Test
    void aTransactionalBatchIsRefused() throws Exception {
        RemotingCommand batch = RemotingCommand.request(RequestCode.SEND_BATCH_MESSAGE);
        RemotingCommand single = halfSend(CLIENT_PROPERTIES, 0);
        single.extFields().forEach(batch::putExtField);
        batch.setBody(new byte[] {0, 0, 0, 1});

        RemotingCommand r = processor(false).processRequest(PRODUCER, batch).get();

        assertEquals(ResponseCode.MESSAGE_ILLEGAL, r.code());
        assertTrue(r.remark().contains("batch cannot be a transactional message"), r.remark());
        assertEquals(0, store.getMaxPhyOffset());
    }

    @Test
    void aDelayedHalfMessageIsRefused() throws Exception {
        RemotingCommand r = processor(false).processRequest(PRODUCER,
            halfSend(CLIENT_PROPERTIES + "DELAY\u00013\u0002", 0)).get();

        assertEquals(ResponseCode.MESSAGE_ILLEGAL, r.code());
        assertEquals(0, store.getMaxPhyOffset());
    }

    @Test
    void anOldClientsRetryWithTranMsgIsAPlainDelayedRetryNotAHalfMessage() {
        BrokerMessage retry = BrokerMessage.builder().topic("%RETRY%cg").queueId(0).body(new byte[] {1})
            .propertiesString("TRAN_MSG\u0001true\u0002DELAY\u00014\u0002UNIQ_KEY\u0001U-3\u0002")
            .bornTimestamp(1).bornHost(BROKER).storeHost(BROKER).reconsumeTimes(1)
            .sysFlag(TransactionalMessages.TRANSACTION_PREPARED_TYPE).build();
        BrokerMessage plain = BrokerMessage.builder().topic("T").queueId(0).body(new byte[] {1})
            .propertiesString("TRAN_MSG\u0001true\u0002").bornTimestamp(1).bornHost(BROKER).storeHost(BROKER)
            .sysFlag(TransactionalMessages.TRANSACTION_COMMIT_TYPE).build();

        PutMessageTransform.Decision d = new HalfMessageTransform().apply(retry);
        PutMessageTransform.Decision committed = new HalfMessageTransform().apply(plain);

        assertEquals("%RETRY%cg", d.message().topic());
        assertEquals(0, d.message().sysFlag() & 0xC, "delivered as the retry it is");
        assertEquals(retry.propertiesString(), d.message().propertiesString());
        assertTrue(committed.message() == plain, "a committed record (or any re-put) passes unchanged");
    }
}
