package io.basalt.broker.topic;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.basalt.broker.JsonConfigFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's topics, persisted in {@code <storePathRootDir>/config/topics.json} (RocketMQ's layout:
 * {@code {"dataVersion":{...},"topicConfigTable":{name: TopicConfig}}}). Creates RocketMQ's
 * {@code TBW102} template topic (perm 7, {@code defaultTopicQueueNums} queues) when auto-creation is on,
 * and implements its auto-creation rule for sends. Thread-safe; every change is persisted at once.
 */
public final class TopicConfigManager {
    private static final Logger log = LoggerFactory.getLogger(TopicConfigManager.class);

    private final ConcurrentMap<String, TopicConfig> topics = new ConcurrentHashMap<>();
    private final JsonConfigFile file;
    private final boolean autoCreateTopicEnable;
    private final int defaultTopicQueueNums;
    private final AtomicLong dataVersionCounter = new AtomicLong();
    private volatile long dataVersionTimestamp = System.currentTimeMillis();

    TopicConfigManager(JsonConfigFile file, boolean autoCreateTopicEnable, int defaultTopicQueueNums) {
        this.file = file;
        this.autoCreateTopicEnable = autoCreateTopicEnable;
        this.defaultTopicQueueNums = defaultTopicQueueNums;
    }

    /**
     * Loads {@code <configDir>/topics.json} (or its backup) and adds the system topics.
     *
     * @throws IOException when the file and its backup are both corrupt
     */
    public static TopicConfigManager open(Path configDir, boolean autoCreateTopicEnable, int defaultTopicQueueNums)
        throws IOException {
        TopicConfigManager m = new TopicConfigManager(new JsonConfigFile(configDir.resolve("topics.json")),
            autoCreateTopicEnable, defaultTopicQueueNums);
        m.load();
        return m;
    }

    private void load() throws IOException {
        Optional<JsonNode> content = file.load();
        if (content.isPresent()) {
            JsonNode root = content.get();
            root.path("topicConfigTable").fields().forEachRemaining(e ->
                topics.put(e.getKey(), TopicConfig.fromJson(e.getKey(), e.getValue())));
            dataVersionCounter.set(root.path("dataVersion").path("counter").asLong(0));
            log.info("loaded {} topics from {}", topics.size(), file.path());
        }
        boolean changed = false;
        if (autoCreateTopicEnable && !topics.containsKey(TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC)) {
            topics.put(TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC, TopicConfig.of(TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC,
                defaultTopicQueueNums, Perm.READ | Perm.WRITE | Perm.INHERIT));
            changed = true;
        }
        if (changed) {
            changed();
        }
    }

    public TopicConfig get(String topic) {
        return topics.get(topic);
    }

    public Collection<TopicConfig> all() {
        return List.copyOf(topics.values());
    }

    /** RocketMQ's dataVersion as JSON: counter bumped by every change. */
    public ObjectNode dataVersion() {
        ObjectNode v = JsonNodeFactory.instance.objectNode();
        v.put("counter", dataVersionCounter.get());
        v.put("stateVersion", 0);
        v.put("timestamp", dataVersionTimestamp);
        return v;
    }

    /**
     * RocketMQ's send-path auto-creation: when {@code topic} is missing and {@code defaultTopic} exists
     * with PERM_INHERIT (and auto-creation is on), creates {@code topic} with
     * min(clientDefaultQueueNums, defaultTopic's write queues) queues and the default topic's perm minus INHERIT.
     *
     * @return the existing or created topic; empty when it may not be created
     */
    public Optional<TopicConfig> createTopicInSendMessageMethod(String topic, String defaultTopic, String remoteAddress,
        int clientDefaultQueueNums, int topicSysFlag) throws IOException {
        TopicConfig existing = topics.get(topic);
        if (existing != null) {
            return Optional.of(existing);
        }
        TopicConfig template = defaultTopic == null ? null : topics.get(defaultTopic);
        if (template == null || !template.isInheritable()
            || (TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC.equals(defaultTopic) && !autoCreateTopicEnable)) {
            return Optional.empty();
        }
        int queueNums = Math.max(1, Math.min(clientDefaultQueueNums, template.writeQueueNums()));
        TopicConfig created = new TopicConfig(topic, queueNums, queueNums, template.perm() & ~Perm.INHERIT,
            "SINGLE_TAG", topicSysFlag, false, java.util.Map.of());
        TopicConfig winner = topics.putIfAbsent(topic, created);
        if (winner != null) {
            return Optional.of(winner);
        }
        log.info("auto-created topic {} ({} queues, perm {}) from {} for a send from {}", topic, queueNums,
            created.perm(), defaultTopic, remoteAddress);
        changed();
        return Optional.of(created);
    }

    /** Creates {@code %RETRY%<group>}-style topics (1 queue, RW) if missing. */
    public TopicConfig createIfAbsent(String topic, int queueNums, int perm) throws IOException {
        TopicConfig existing = topics.get(topic);
        if (existing != null) {
            return existing;
        }
        TopicConfig created = TopicConfig.of(topic, queueNums, perm);
        TopicConfig winner = topics.putIfAbsent(topic, created);
        if (winner != null) {
            return winner;
        }
        log.info("created topic {} ({} queues, perm {})", topic, queueNums, perm);
        changed();
        return created;
    }

    /** Creates or replaces a topic (admin UPDATE_AND_CREATE_TOPIC). */
    public void createOrUpdate(TopicConfig config) throws IOException {
        TopicConfig old = topics.put(config.topicName(), config);
        log.info("{} topic {}: {}", old == null ? "created" : "updated", config.topicName(), config);
        changed();
    }

    /** Removes a topic; true if it existed. */
    public boolean delete(String topic) throws IOException {
        TopicConfig old = topics.remove(topic);
        if (old == null) {
            return false;
        }
        log.info("deleted topic {}", topic);
        changed();
        return true;
    }

    private void changed() throws IOException {
        dataVersionCounter.incrementAndGet();
        dataVersionTimestamp = System.currentTimeMillis();
        persist();
    }

    /** The file content: dataVersion and the topic table. */
    public ObjectNode toJson() {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        root.set("dataVersion", dataVersion());
        ObjectNode table = root.putObject("topicConfigTable");
        topics.values().stream().sorted(java.util.Comparator.comparing(TopicConfig::topicName))
            .forEach(t -> table.set(t.topicName(), t.toJson()));
        return root;
    }

    /** Writes topics.json atomically. Serialised: concurrent changes persist one after the other. */
    public synchronized void persist() throws IOException {
        file.store(toJson());
    }
}
