package io.basalt.broker.processor.admin;

import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.processor.RequestFields;
import io.basalt.broker.protocol.Json;
import io.basalt.broker.protocol.MessageQueue;
import io.basalt.broker.protocol.TopicConfigSerializeWrapper;
import io.basalt.broker.protocol.TopicOffset;
import io.basalt.broker.protocol.TopicStatsTable;
import io.basalt.broker.topic.TopicAttributes;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.broker.topic.TopicValidator;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.MessageStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Topic administration as RocketMQ's {@code AdminBrokerProcessor} does it: UPDATE_AND_CREATE_TOPIC,
 * DELETE_TOPIC_IN_BROKER, GET_ALL_TOPIC_CONFIG, GET_TOPIC_CONFIG and GET_TOPIC_STATS_INFO (per queue:
 * min and max logical offsets and the store time of the last message). Safe for concurrent calls.
 */
public final class TopicAdminProcessor extends ImmediateAdminProcessor {
    private static final Logger log = LoggerFactory.getLogger(TopicAdminProcessor.class);

    private final String brokerName;
    private final TopicConfigManager topics;
    private final ConsumerOffsetManager offsets;
    private final MessageStore store;
    private final Runnable registerTopics;

    public TopicAdminProcessor(String brokerName, TopicConfigManager topics, ConsumerOffsetManager offsets,
        MessageStore store) {
        this(brokerName, topics, offsets, store, () -> { });
    }

    /**
     * @param registerTopics registers the changed topic table with the NameServers and returns once they answered;
     *                       run after a topic is created or updated, before the answer
     */
    public TopicAdminProcessor(String brokerName, TopicConfigManager topics, ConsumerOffsetManager offsets,
        MessageStore store, Runnable registerTopics) {
        this.brokerName = brokerName;
        this.topics = topics;
        this.offsets = offsets;
        this.store = store;
        this.registerTopics = registerTopics;
    }

    @Override
    protected RemotingCommand answer(RemotingCommand request, RequestFields fields, RequestContext context)
        throws RequestFields.BadRequestException, IOException {
        return switch (request.code()) {
            case RequestCode.UPDATE_AND_CREATE_TOPIC -> updateAndCreateTopic(fields, context);
            case RequestCode.DELETE_TOPIC_IN_BROKER -> deleteTopic(fields, context);
            case RequestCode.GET_ALL_TOPIC_CONFIG -> allTopicConfig();
            case RequestCode.GET_TOPIC_CONFIG -> topicConfig(fields.requireString("topic"));
            case RequestCode.GET_TOPIC_STATS_INFO -> topicStats(fields.requireString("topic"));
            default -> null;
        };
    }

    /**
     * RocketMQ's system topics ({@link io.basalt.broker.topic.SystemTopics}): the static set, the cluster-name,
     * broker-name, reply and trace topics, and {@code rmq_sys_*}.
     */
    boolean isSystemTopic(String topic) {
        return topics.systemTopics().isSystemTopic(topic);
    }

    private RemotingCommand updateAndCreateTopic(RequestFields fields, RequestContext context)
        throws RequestFields.BadRequestException, IOException {
        String topic = fields.string("topic");
        String invalid = TopicValidator.invalidReason(topic);
        if (invalid != null) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, invalid);
        }
        if (isSystemTopic(topic)) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "The topic[" + topic + "] is conflict with system topic.");
        }
        int readQueueNums = fields.requireInt("readQueueNums");
        int writeQueueNums = fields.requireInt("writeQueueNums");
        if (readQueueNums <= 0 || writeQueueNums <= 0) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "readQueueNums (" + readQueueNums
                + ") and writeQueueNums (" + writeQueueNums + ") of topic[" + topic + "] must be positive");
        }
        int perm = fields.requireInt("perm");
        if (perm < 0 || perm > 15) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "perm " + perm + " of topic[" + topic + "] is not a permission");
        }
        String filterType = fields.string("topicFilterType");
        if (filterType == null) {
            filterType = "SINGLE_TAG";
        } else if (!filterType.equals("SINGLE_TAG") && !filterType.equals("MULTI_TAG")) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "unknown topicFilterType " + filterType);
        }
        TopicConfig existing = topics.get(topic);
        Map<String, String> attributes;
        try {
            attributes = TopicAttributes.alter(existing == null, existing == null ? Map.of() : existing.attributes(),
                fields.string("attributes"));
        } catch (IllegalArgumentException e) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, e.getMessage());
        }
        TopicConfig config = new TopicConfig(topic, readQueueNums, writeQueueNums, perm, filterType,
            fields.intValue("topicSysFlag", 0), fields.bool("order", false), attributes);
        topics.createOrUpdate(config);
        log.info("topic {} {} by {}", topic, existing == null ? "created" : "updated", context.remoteAddress());
        // as RocketMQ's registerIncrementBrokerData: routable on the NameServers once the admin has its answer
        registerTopics.run();
        return RemotingCommand.response(ResponseCode.SUCCESS, null);
    }

    /**
     * RocketMQ 5.2.0's deleteTopic: first the POP retry topics of every group with offsets on the topic
     * ({@code %RETRY%<group>+<topic>}, {@code %RETRY%<group>_<topic>}) that exist, then the topic; each
     * loses its config, its consumer offsets and its consume queues and queue-offset counters in the
     * store, whether or not its config was there. The CommitLog records age out with retention.
     */
    private synchronized RemotingCommand deleteTopic(RequestFields fields, RequestContext context) throws IOException {
        String topic = fields.string("topic");
        if (topic == null || topic.isBlank()) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "The specified topic is blank.");
        }
        if (isSystemTopic(topic)) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "The topic[" + topic + "] is conflict with system topic.");
        }
        List<String> toDelete = new ArrayList<>();
        for (String group : offsets.groupsOf(topic)) {
            for (String popRetry : List.of(popRetryTopicV2(topic, group), popRetryTopicV1(topic, group))) {
                if (topics.get(popRetry) != null) {
                    toDelete.add(popRetry);
                }
            }
        }
        toDelete.add(topic);
        for (String deleted : toDelete) {
            topics.delete(deleted);
            offsets.removeTopic(deleted);
        }
        // a restart after the store dropped the queues must not find the old offsets of the topic
        offsets.persist();
        store.deleteTopics(new LinkedHashSet<>(toDelete));
        log.info("topics {} deleted by {}", toDelete, context.remoteAddress());
        return RemotingCommand.response(ResponseCode.SUCCESS, null);
    }

    /** RocketMQ's KeyBuilder.buildPopRetryTopic(topic, group, true). */
    static String popRetryTopicV2(String topic, String group) {
        return TopicValidator.RETRY_GROUP_TOPIC_PREFIX + group + "+" + topic;
    }

    /** RocketMQ's KeyBuilder.buildPopRetryTopicV1(topic, group). */
    static String popRetryTopicV1(String topic, String group) {
        return TopicValidator.RETRY_GROUP_TOPIC_PREFIX + group + "_" + topic;
    }

    private RemotingCommand allTopicConfig() {
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(topicTable(topics).encode());
        return response;
    }

    /** The topic table as RocketMQ sends it (GET_ALL_TOPIC_CONFIG, REGISTER_BROKER): sorted by name, with its version. */
    public static TopicConfigSerializeWrapper topicTable(TopicConfigManager topics) {
        Map<String, TopicConfig> table = new LinkedHashMap<>();
        topics.all().stream().sorted(Comparator.comparing(TopicConfig::topicName))
            .forEach(config -> table.put(config.topicName(), config));
        return new TopicConfigSerializeWrapper(table, topics.dataVersion());
    }

    private RemotingCommand topicConfig(String topic) {
        TopicConfig config = topics.get(topic);
        if (config == null) {
            return RemotingCommand.response(ResponseCode.TOPIC_NOT_EXIST, "No topic in this broker. topic: " + topic);
        }
        // RocketMQ's TopicConfigAndQueueMapping: the config, and no static-topic mapping
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(Json.encode(TopicConfigSerializeWrapper.toJson(config)));
        return response;
    }

    private RemotingCommand topicStats(String topic) {
        TopicConfig config = topics.get(topic);
        if (config == null) {
            return RemotingCommand.response(ResponseCode.TOPIC_NOT_EXIST, "topic[" + topic + "] not exist");
        }
        Map<MessageQueue, TopicOffset> table = new LinkedHashMap<>();
        for (int queueId = 0; queueId < config.writeQueueNums(); queueId++) {
            long min = Math.max(0, store.getMinOffsetInQueue(topic, queueId));
            long max = Math.max(0, store.getMaxOffsetInQueue(topic, queueId));
            long lastUpdate = max > 0 ? Math.max(0, store.getMessageStoreTimeStamp(topic, queueId, max - 1)) : 0;
            table.put(new MessageQueue(topic, brokerName, queueId), new TopicOffset(min, max, lastUpdate));
        }
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(new TopicStatsTable(table).encode());
        return response;
    }
}
