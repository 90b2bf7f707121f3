package io.basalt.store.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.store.FlushDiskType;
import io.basalt.store.GetMessageResult;
import io.basalt.store.GetMessageStatus;
import io.basalt.store.MessageStore;
import io.basalt.store.QueryMessageResult;
import io.basalt.store.StoreConfig;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.commitlog.MessageRecordDecoder;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.SelectedBuffer;

import org.apache.rocketmq.common.BrokerConfig;
import org.apache.rocketmq.common.message.MessageAccessor;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageExtBrokerInner;
import org.apache.rocketmq.store.DefaultMessageStore;
import org.apache.rocketmq.store.config.MessageStoreConfig;
import org.apache.rocketmq.store.stats.BrokerStatsManager;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store directory written by Basalt opens in RocketMQ 5.2.0's DefaultMessageStore and returns every
 * message (by queue and by key), and a directory written by RocketMQ opens in Basalt likewise. Both
 * sides use the same small file sizes, as a broker.conf shared by both would say.
 */
@LeakCheckExtension.AllowThreads(value = "ThreadUtils-StatisticsManagerCleaner",
    because = "RocketMQ 5.2.0's BrokerStatsManager starts a StatisticsManager whose cleaner thread nothing can stop:"
        + " the executor is private and neither has a shutdown for it")
class RocketMqStoreCompatibilityTest {
    private static final int COMMIT_LOG_FILE_SIZE = 64 * 1024;
    private static final int CONSUME_QUEUE_FILE_SIZE = 100 * 20;
    private static final int HASH_SLOTS = 64;
    private static final int INDEX_ITEMS = 400;
    private static final int QUEUES = 3;
    private static final int MESSAGES = 900;
    private static final String TOPIC = "CompatTopic";

    @TempDir
    Path root;

    private StoreConfig basaltConfig() {
        return StoreConfig.builder().storePathRootDir(root.toString()).mappedFileSizeCommitLog(COMMIT_LOG_FILE_SIZE)
                .mappedFileSizeConsumeQueue(CONSUME_QUEUE_FILE_SIZE).warmMapedFileEnable(false)
                .maxHashSlotNum(HASH_SLOTS).maxIndexNum(INDEX_ITEMS).build();
    }

    private MessageStore openBasalt() throws IOException {
        MessageStore store = MessageStore.open(basaltConfig());
        store.load();
        store.start();
        return store;
    }

    private DefaultMessageStore openRocketMq() throws Exception {
        MessageStoreConfig config = new MessageStoreConfig();
        config.setStorePathRootDir(root.toString());
        config.setStorePathCommitLog(root.resolve("commitlog").toString());
        config.setMappedFileSizeCommitLog(COMMIT_LOG_FILE_SIZE);
        config.setMappedFileSizeConsumeQueue(CONSUME_QUEUE_FILE_SIZE);
        config.setMaxHashSlotNum(HASH_SLOTS);
        config.setMaxIndexNum(INDEX_ITEMS);
        config.setFlushDiskType(org.apache.rocketmq.store.config.FlushDiskType.ASYNC_FLUSH);
        config.setHaListenPort(0);
        BrokerConfig brokerConfig = new BrokerConfig();
        DefaultMessageStore store = new DefaultMessageStore(config, new BrokerStatsManager("compat", true), null,
                brokerConfig, new ConcurrentHashMap<>());
        assertTrue(store.load(), "RocketMQ loads the store");
        store.start();
        return store;
    }

    private static String body(int i) {
        return "body-" + i;
    }

    private static String keys(int i) {
        return "order-" + i + " group-" + (i % 7);
    }

    @Test
    void aStoreWrittenByBasaltOpensInRocketMq() throws Exception {
        MessageStore basalt = openBasalt();
        try {
            for (int i = 0; i < MESSAGES; i++) {
                Map<String, String> props = new LinkedHashMap<>();
                props.put(MessageProperties.TAGS, "Tag" + (i % 2));
                props.put(MessageProperties.KEYS, keys(i));
                props.put(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX, "UNIQ" + i);
                BrokerMessage m = BrokerMessage.builder().topic(TOPIC).queueId(i % QUEUES).body(body(i).getBytes())
                        .properties(props).bornTimestamp(System.currentTimeMillis())
                        .bornHost(new InetSocketAddress("127.0.0.1", 40000))
                        .storeHost(new InetSocketAddress("127.0.0.1", 10911)).build();
                assertEquals(PutMessageStatus.PUT_OK, basalt.asyncPutMessage(m).join().status());
            }
            long end = basalt.getMaxPhyOffset();
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> basalt.getReputFromOffset() == end);
        } finally {
            basalt.shutdown();
        }

        DefaultMessageStore rocketMq = openRocketMq();
        try {
            List<String> seen = new ArrayList<>();
            for (int q = 0; q < QUEUES; q++) {
                assertEquals(MESSAGES / QUEUES, rocketMq.getMaxOffsetInQueue(TOPIC, q));
                long offset = rocketMq.getMinOffsetInQueue(TOPIC, q);
                while (offset < MESSAGES / QUEUES) {
                    org.apache.rocketmq.store.GetMessageResult r = rocketMq.getMessage("g", TOPIC, q, offset, 32, null);
                    assertEquals(org.apache.rocketmq.store.GetMessageStatus.FOUND, r.getStatus());
                    for (ByteBuffer b : r.getMessageBufferList()) {
                        MessageExt m = MessageDecoder.decode(b);
                        assertEquals(q, m.getQueueId());
                        assertEquals(keys(Integer.parseInt(new String(m.getBody()).substring(5))), m.getKeys());
                        seen.add(new String(m.getBody()));
                    }
                    offset = r.getNextBeginOffset();
                    r.release();
                }
            }
            assertEquals(MESSAGES, seen.size());
            assertEquals(MESSAGES, seen.stream().distinct().count());

            org.apache.rocketmq.store.QueryMessageResult byKey = rocketMq.queryMessage(TOPIC, "order-123", 10, 0, Long.MAX_VALUE);
            List<String> found = byKey.getMessageBufferList().stream().map(b -> new String(MessageDecoder.decode(b).getBody())).toList();
            byKey.release();
            assertEquals(List.of(body(123)), found);
            org.apache.rocketmq.store.QueryMessageResult byUniq = rocketMq.queryMessage(TOPIC, "UNIQ77", 10, 0, Long.MAX_VALUE);
            assertEquals(1, byUniq.getMessageBufferList().size());
            byUniq.release();
        } finally {
            RocketMqStoreShutdown.shutdown(rocketMq);
        }
    }

    @Test
    void aStoreWrittenByRocketMqOpensInBasalt() throws Exception {
        DefaultMessageStore rocketMq = openRocketMq();
        try {
            for (int i = 0; i < MESSAGES; i++) {
                MessageExtBrokerInner m = new MessageExtBrokerInner();
                m.setTopic(TOPIC);
                m.setQueueId(i % QUEUES);
                m.setBody(body(i).getBytes());
                m.setTags("Tag" + (i % 2));
                m.setKeys(keys(i));
                MessageAccessor.putProperty(m, MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, "UNIQ" + i);
                m.setTagsCode(MessageExtBrokerInner.tagsString2tagsCode(m.getTags()));
                m.setBornTimestamp(System.currentTimeMillis());
                m.setBornHost(new InetSocketAddress("127.0.0.1", 40000));
                m.setStoreHost(new InetSocketAddress("127.0.0.1", 10911));
                m.setPropertiesString(MessageDecoder.messageProperties2String(m.getProperties()));
                assertEquals(org.apache.rocketmq.store.PutMessageStatus.PUT_OK, rocketMq.putMessage(m).getPutMessageStatus());
            }
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> rocketMq.dispatchBehindBytes() == 0);
        } finally {
            RocketMqStoreShutdown.shutdown(rocketMq);
        }

        MessageStore basalt = openBasalt();
        try {
            List<String> seen = new ArrayList<>();
            for (int q = 0; q < QUEUES; q++) {
                assertEquals(MESSAGES / QUEUES, basalt.getMaxOffsetInQueue(TOPIC, q));
                long offset = basalt.getMinOffsetInQueue(TOPIC, q);
                while (offset < MESSAGES / QUEUES) {
                    try (GetMessageResult r = basalt.getMessage("g", TOPIC, q, offset, 32, null)) {
                        assertEquals(GetMessageStatus.FOUND, r.status());
                        for (SelectedBuffer b : r.messages()) {
                            var m = MessageRecordDecoder.decode(b.buffer().duplicate());
                            assertEquals(q, m.queueId());
                            seen.add(new String(m.body()));
                        }
                        offset = r.nextBeginOffset();
                    }
                }
            }
            assertEquals(MESSAGES, seen.size());
            assertEquals(MESSAGES, seen.stream().distinct().count());
            try (QueryMessageResult byKey = basalt.queryMessage(TOPIC, "order-123", 10, 0, Long.MAX_VALUE)) {
                assertEquals(1, byKey.messages().size());
                assertEquals(body(123), new String(MessageRecordDecoder.decode(byKey.messages().get(0).buffer().duplicate()).body()));
            }
            // and Basalt appends after RocketMQ's records with the queue offsets RocketMQ left
            Map<String, String> props = Map.of(MessageProperties.TAGS, "TagX");
            BrokerMessage next = BrokerMessage.builder().topic(TOPIC).queueId(0).body("after".getBytes()).properties(props)
                    .bornTimestamp(System.currentTimeMillis()).bornHost(new InetSocketAddress("127.0.0.1", 40000))
                    .storeHost(new InetSocketAddress("127.0.0.1", 10911)).build();
            assertEquals(MESSAGES / QUEUES, basalt.asyncPutMessage(next).join().appendResult().queueOffset());
        } finally {
            basalt.shutdown();
        }
    }
}
