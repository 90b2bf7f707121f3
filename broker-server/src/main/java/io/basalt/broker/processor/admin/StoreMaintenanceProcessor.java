package io.basalt.broker.processor.admin;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import io.basalt.broker.client.ClientManager;
import io.basalt.broker.client.ConsumerGroupInfo;
import io.basalt.broker.processor.RequestFields;
import io.basalt.broker.protocol.Json;
import io.basalt.broker.protocol.SubscriptionData;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.MessageStore;
import io.basalt.store.QueueEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store maintenance requests of {@code mqadmin}:
 * <ul>
 *   <li>CLEAN_EXPIRED_CONSUMEQUEUE ({@code cleanExpiredCQ}): deletes now the ConsumeQueue and index files whose
 *   entries all point below the CommitLog's min offset (what retention does every round); each queue keeps its
 *   newest file and so its position;</li>
 *   <li>DELETE_EXPIRED_COMMITLOG ({@code deleteExpiredCommitLog}): the next 20 cleaning rounds, the first at
 *   once, delete CommitLog files older than {@code fileReservedTime} whatever the hour ({@code deleteWhen}
 *   ignored);</li>
 *   <li>CLEAN_UNUSED_TOPIC ({@code cleanUnusedTopic}): deletes from the store the consume queues of every topic
 *   that has no topic config, except system and LMQ topics; the CommitLog is untouched;</li>
 *   <li>QUERY_CONSUME_QUEUE ({@code queryCq}): {@code count} entries of one consume queue from {@code index};</li>
 *   <li>SET_COMMITLOG_READ_MODE and RESET_MASTER_FLUSH_OFFSET: refused, with why (see {@link #READ_MODE_REFUSAL},
 *   {@link #MASTER_FLUSH_OFFSET_REFUSAL}).</li>
 * </ul>
 * Safe for concurrent calls.
 */
public final class StoreMaintenanceProcessor extends ImmediateAdminProcessor {
    private static final Logger log = LoggerFactory.getLogger(StoreMaintenanceProcessor.class);
    static final String LMQ_PREFIX = "%LMQ%";
    static final String READ_MODE_REFUSAL = "SET_COMMITLOG_READ_MODE is not supported by Basalt: it sets the kernel's"
        + " read-ahead (madvise) on RocketMQ's mapped CommitLog files; Basalt maps its files through the JDK, which"
        + " offers no madvise, so the read-ahead stays the kernel's default";
    static final String MASTER_FLUSH_OFFSET_REFUSAL = "RESET_MASTER_FLUSH_OFFSET is not supported by Basalt: a RocketMQ"
        + " slave truncates its CommitLog to this offset at its next start; a Basalt slave tells its master its CommitLog end"
        + " at every connection and replication decides from there: it keeps no master flush offset to reset";

    private final MessageStore store;
    private final TopicConfigManager topics;
    private final ClientManager clients;

    public StoreMaintenanceProcessor(MessageStore store, TopicConfigManager topics, ClientManager clients) {
        this.store = store;
        this.topics = topics;
        this.clients = clients;
    }

    @Override
    protected RemotingCommand answer(RemotingCommand request, RequestFields fields, RequestContext context)
        throws RequestFields.BadRequestException, IOException {
        return switch (request.code()) {
            case RequestCode.CLEAN_EXPIRED_CONSUMEQUEUE -> cleanExpiredConsumeQueues(context);
            case RequestCode.DELETE_EXPIRED_COMMITLOG -> deleteExpiredCommitLog(context);
            case RequestCode.CLEAN_UNUSED_TOPIC -> cleanUnusedTopics(context);
            case RequestCode.QUERY_CONSUME_QUEUE -> queryConsumeQueue(fields);
            case RequestCode.SET_COMMITLOG_READ_MODE -> refuse(READ_MODE_REFUSAL, context);
            case RequestCode.RESET_MASTER_FLUSH_OFFSET -> refuse(MASTER_FLUSH_OFFSET_REFUSAL, context);
            default -> null;
        };
    }

    private RemotingCommand cleanExpiredConsumeQueues(RequestContext context) {
        int deleted;
        try {
            deleted = store.cleanExpiredConsumeQueues();
        } catch (IOException e) {
            log.error("cleanExpiredCQ from {} failed: {}", context.remoteAddress(), e.toString());
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "cleaning expired consume queues failed: " + e);
        }
        log.info("cleanExpiredCQ from {}: {} ConsumeQueue and index files below CommitLog offset {} deleted",
            context.remoteAddress(), deleted, store.getMinPhyOffset());
        return RemotingCommand.response(ResponseCode.SUCCESS, null);
    }

    private RemotingCommand deleteExpiredCommitLog(RequestContext context) {
        store.requestExpiredCommitLogDeletion();
        log.info("deleteExpiredCommitLog from {}: the next cleaning rounds delete expired CommitLog files whatever"
            + " the hour", context.remoteAddress());
        return RemotingCommand.response(ResponseCode.SUCCESS, null);
    }

    private RemotingCommand cleanUnusedTopics(RequestContext context) {
        Set<String> unused = unusedTopics(store.queueIdsByTopic().keySet());
        int deleted;
        try {
            deleted = unused.isEmpty() ? 0 : store.deleteTopics(unused);
        } catch (IOException | IllegalStateException e) {
            log.error("cleanUnusedTopic from {} failed for {}: {}", context.remoteAddress(), unused, e.toString());
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "deleting the consume queues of " + unused
                + " failed: " + e);
        }
        log.info("cleanUnusedTopic from {}: consume queues of {} topics without a topic config deleted: {}",
            context.remoteAddress(), deleted, unused);
        return RemotingCommand.response(ResponseCode.SUCCESS, null);
    }

    /** The topics of {@code inStore} that have no topic config and are neither system nor LMQ topics. */
    Set<String> unusedTopics(Set<String> inStore) {
        Set<String> unused = new TreeSet<>();
        for (String topic : inStore) {
            if (topics.get(topic) == null && !topics.systemTopics().isSystemTopic(topic)
                && !topic.startsWith(LMQ_PREFIX)) {
                unused.add(topic);
            }
        }
        return unused;
    }

    private RemotingCommand queryConsumeQueue(RequestFields fields) throws RequestFields.BadRequestException {
        String topic = fields.requireString("topic");
        int queueId = fields.requireInt("queueId");
        long index = fields.requireLong("index");
        int count = fields.requireInt("count");
        String group = fields.string("consumerGroup");
        if (!store.queueIdsByTopic().getOrDefault(topic, Set.of()).contains(queueId)) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, String.format("%d@%s is not exist!", queueId, topic));
        }
        Map<String, Object> body = new TreeMap<String, Object>();
        if (group != null) {
            ConsumerGroupInfo info = clients.consumerGroup(group);
            io.basalt.broker.client.SubscriptionData s = info == null ? null : info.subscription(topic);
            if (s == null) {
                body.put("filterData", String.format("%s@%s is not online!", group, topic));
            } else {
                body.put("filterData", "null");
                body.put("subscriptionData", new SubscriptionData(s.topic(), s.subString(), s.tagsSet(), s.codeSet(),
                    s.subVersion(), s.expressionType(), false).toJson());
            }
        }
        body.put("maxQueueIndex", store.getMaxOffsetInQueue(topic, queueId));
        body.put("minQueueIndex", store.getMinOffsetInQueue(topic, queueId));
        List<Object> entries = new ArrayList<>();
        if (count > 0 && index >= 0) {
            // Basalt keeps no ConsumeQueue extension: an entry is its position, size and tags hash code
            long next = index;
            while (next < index + count) {
                // one call reads within one ConsumeQueue file: go on until count entries or the queue's end
                List<QueueEntry> read = store.readQueueEntries(topic, queueId, next, (int) (index + count - next));
                if (read.isEmpty()) {
                    break;
                }
                for (QueueEntry e : read) {
                    Map<String, Object> one = new TreeMap<String, Object>();
                    one.put("eval", false);
                    one.put("physicOffset", e.physicalOffset());
                    one.put("physicSize", e.size());
                    one.put("tagsCode", e.tagsCode());
                    entries.add(one);
                }
                next += read.size();
            }
        }
        body.put("queueData", entries);
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(Json.encode(body));
        return response;
    }

    private static RemotingCommand refuse(String why, RequestContext context) {
        log.info("refused from {}: {}", context.remoteAddress(), why);
        return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, why);
    }
}
