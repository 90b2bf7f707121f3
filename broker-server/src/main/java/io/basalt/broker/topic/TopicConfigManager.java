package io.basalt.broker.topic;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.basalt.broker.JsonConfigFile;
import io.basalt.broker.metadata.MetadataPersister;
import io.basalt.broker.protocol.DataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's topics, persisted in {@code <storePathRootDir>/config/topics.json} (RocketMQ's layout:
 * {@code {"dataVersion":{...},"topicConfigTable":{name: TopicConfig}}}). Creates RocketMQ's start-up topics
 * ({@link SystemTopics}: {@code TBW102} when auto-creation is on, the cluster- and broker-name topics, ...)
 * when the file lacks them, implements RocketMQ's auto-creation rule for sends, and refuses to open a table
 * with a topic attribute Basalt does not implement. Thread-safe. Every change is persisted at once, unless
 * {@link #persistSendPathChangesWith} hands the send path's creations (auto-created and retry topics) to the
 * background {@link MetadataPersister}; admin changes (create, update, delete, a slave's sync) are still
 * written before the call returns, so an admin request is answered only once its change is durable.
 */
public final class TopicConfigManager {
    private static final Logger log = LoggerFactory.getLogger(TopicConfigManager.class);

    private final ConcurrentMap<String, TopicConfig> topics = new ConcurrentHashMap<>();
    private final JsonConfigFile file;
    /** Changed at runtime by UPDATE_BROKER_CONFIG; read on every auto-creating send. */
    private volatile boolean autoCreateTopicEnable;
    private final SystemTopics systemTopics;
    private final BrokerPermission brokerPermission = new BrokerPermission();
    private final LongSupplier clock;
    private volatile DataVersion dataVersion;
    /** Set once at start: where send-path creations go instead of a synchronous write; null writes at once. */
    private volatile MetadataPersister.Table deferredWrites;
    private volatile TopicCreationLimiter creationLimiter = TopicCreationLimiter.unlimited();

    TopicConfigManager(JsonConfigFile file, boolean autoCreateTopicEnable, SystemTopics systemTopics, LongSupplier clock) {
        this.file = file;
        this.autoCreateTopicEnable = autoCreateTopicEnable;
        this.systemTopics = systemTopics;
        this.clock = clock;
        this.dataVersion = new DataVersion(0, clock.getAsLong(), 0);
    }

    /**
     * Loads {@code <configDir>/topics.json} (or its backup) and adds the system topics of a broker with these
     * settings.
     *
     * @throws IOException when the file and its backup are both corrupt
     * @throws UnsupportedTopicException when a stored topic has an attribute Basalt does not implement
     */
    public static TopicConfigManager open(Path configDir, SystemTopics.Settings settings) throws IOException {
        return open(configDir, settings.autoCreateTopicEnable(), SystemTopics.of(settings));
    }

    /**
     * Loads {@code <configDir>/topics.json} (or its backup) and adds {@code TBW102} when auto-creation is on: a
     * topic table without a cluster or broker name of its own.
     *
     * @throws IOException when the file and its backup are both corrupt
     */
    public static TopicConfigManager open(Path configDir, boolean autoCreateTopicEnable, int defaultTopicQueueNums)
        throws IOException {
        return open(configDir, autoCreateTopicEnable, SystemTopics.templateOnly(autoCreateTopicEnable, defaultTopicQueueNums));
    }

    private static TopicConfigManager open(Path configDir, boolean autoCreateTopicEnable, SystemTopics systemTopics)
        throws IOException {
        TopicConfigManager m = new TopicConfigManager(new JsonConfigFile(configDir.resolve("topics.json"),
            TopicConfigManager::checkTopics),
            autoCreateTopicEnable, systemTopics, System::currentTimeMillis);
        m.load();
        return m;
    }

    /**
     * A topic in topics.json that Basalt cannot serve as its attributes say (a RocketMQ store with a
     * compacted or batch-queue topic). Start-up stops: the CommitLog's retention is shared by all topics, so
     * not serving the topic would not keep its data; the operator decides what to do with it.
     */
    public static final class UnsupportedTopicException extends IOException {
        UnsupportedTopicException(String message) {
            super(message);
        }
    }

    /**
     * Queue counts must be whole numbers ≥ 0 and perm RocketMQ's bits (0–7): read as they are, a negative queue
     * count would be advertised in routes and a wrong perm would silently open or close a topic.
     */
    static void checkTopics(JsonNode content) throws IOException {
        JsonNode table = content.path("topicConfigTable");
        if (table.isMissingNode()) {
            return;
        }
        if (!table.isObject()) {
            throw new IOException("topicConfigTable is not an object");
        }
        for (var topics = table.fields(); topics.hasNext(); ) {
            var topic = topics.next();
            if (!topic.getValue().isObject()) {
                throw new IOException("topic " + topic.getKey() + " is not an object");
            }
            for (String field : List.of("readQueueNums", "writeQueueNums", "perm")) {
                JsonNode value = topic.getValue().get(field);
                int max = field.equals("perm") ? 7 : Integer.MAX_VALUE;
                if (value != null && (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < 0
                    || value.intValue() > max)) {
                    throw new IOException("topic " + topic.getKey() + ": " + field + " is " + value + ", not a whole number"
                        + " from 0 to " + max);
                }
            }
        }
    }

    void load() throws IOException {
        Optional<JsonNode> content = file.load();
        if (content.isPresent()) {
            JsonNode root = content.get();
            root.path("topicConfigTable").fields().forEachRemaining(e ->
                topics.put(e.getKey(), TopicConfig.fromJson(e.getKey(), e.getValue())));
            JsonNode version = root.path("dataVersion");
            dataVersion = new DataVersion(version.path("stateVersion").asLong(0),
                version.path("timestamp").asLong(dataVersion.timestamp()), version.path("counter").asLong(0));
            log.info("loaded {} topics from {}", topics.size(), file.path());
        }
        List<String> unsupported = topics.values().stream().sorted(java.util.Comparator.comparing(TopicConfig::topicName))
            .flatMap(t -> TopicAttributes.unsupported(t.attributes())
                .map(reason -> "topic[" + t.topicName() + "] " + reason).stream())
            .toList();
        if (!unsupported.isEmpty()) {
            throw new UnsupportedTopicException(file.path() + " holds topics Basalt cannot serve as their attributes say: "
                + String.join("; ", unsupported) + ". Remove the attribute from the topic in topics.json if losing what"
                + " it promises is acceptable, or keep the store on a RocketMQ broker");
        }
        boolean changed = false;
        for (SystemTopics.StartupTopic startup : systemTopics.startupTopics()) {
            TopicConfig wanted = startup.config();
            TopicConfig existing = topics.get(wanted.topicName());
            if (existing == null) {
                topics.put(wanted.topicName(), wanted);
                log.info("created system topic {} ({} queues, perm {})", wanted.topicName(), wanted.writeQueueNums(),
                    wanted.perm());
                changed = true;
            } else if (startup.permFromSettings() && existing.perm() != wanted.perm()) {
                topics.put(wanted.topicName(), existing.withPerm(wanted.perm()));
                log.info("system topic {}: perm {} -> {} (clusterTopicEnable / brokerTopicEnable)", wanted.topicName(),
                    existing.perm(), wanted.perm());
                changed = true;
            }
        }
        if (changed) {
            changed();
        }
    }

    /** Which topic names are reserved for the broker (RocketMQ's {@code isSystemTopic}). */
    public SystemTopics systemTopics() {
        return systemTopics;
    }

    public TopicConfig get(String topic) {
        return topics.get(topic);
    }

    public Collection<TopicConfig> all() {
        return List.copyOf(topics.values());
    }

    /** RocketMQ's dataVersion of the topic table: its counter is bumped by every change. */
    public DataVersion dataVersion() {
        return dataVersion;
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
        changedOnSendPath();
        return Optional.of(created);
    }

    /**
     * Turns auto-creation by sending on or off while the broker runs (UPDATE_BROKER_CONFIG). Turning it on also
     * creates {@code TBW102}, the template the clients' auto-creating sends name, if the broker started without it.
     *
     * @return whether TBW102 was created (its route must then be registered)
     */
    public boolean setAutoCreateTopicEnable(boolean enable, int defaultTopicQueueNums) throws IOException {
        autoCreateTopicEnable = enable;
        if (!enable || topics.containsKey(TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC)) {
            return false;
        }
        createIfAbsent(TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC, defaultTopicQueueNums, Perm.READ | Perm.WRITE | Perm.INHERIT);
        return true;
    }

    /** The broker's permission over all its topics (brokerPermission), read by the send, pull and route paths. */
    public BrokerPermission brokerPermission() {
        return brokerPermission;
    }

    /**
     * A new data version without a change of a topic: the NameServers take a registration's topics only when its
     * version changed, so a change of what is registered (brokerPermission) must bump it (as RocketMQ does).
     */
    public void bumpDataVersion() throws IOException {
        changed();
    }

    public boolean autoCreateTopicEnable() {
        return autoCreateTopicEnable;
    }

    /** Creates {@code %RETRY%<group>}-style topics (1 queue, RW) if missing. */
    public TopicConfig createIfAbsent(String topic, int queueNums, int perm) throws IOException {
        return createIfAbsent(topic, queueNums, perm, 0);
    }

    /**
     * RocketMQ's {@code createTopicInSendMessageBackMethod}: {@code topic} with {@code queueNums} read and write
     * queues, {@code perm} and {@code topicSysFlag} (e.g. UNIT_SUB for a unit-mode consumer's retry topic) if
     * missing; an existing topic is returned as it is.
     */
    public TopicConfig createIfAbsent(String topic, int queueNums, int perm, int topicSysFlag) throws IOException {
        TopicConfig existing = topics.get(topic);
        if (existing != null) {
            return existing;
        }
        TopicConfig created = new TopicConfig(topic, queueNums, queueNums, perm, "SINGLE_TAG", topicSysFlag, false,
            java.util.Map.of());
        TopicConfig winner = topics.putIfAbsent(topic, created);
        if (winner != null) {
            return winner;
        }
        log.info("created topic {} ({} queues, perm {}, topicSysFlag {})", topic, queueNums, perm, topicSysFlag);
        changedOnSendPath();
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

    /**
     * A slave takes its master's topic table (RocketMQ's {@code SlaveSynchronize.syncTopicConfig}), only when the
     * master's version differs from this table's: the version becomes the master's, local topics the master lacks
     * are deleted, the master's are put, and topics.json is written.
     *
     * @return true when the table was replaced
     */
    public boolean replaceFromMaster(Map<String, TopicConfig> masterTable, DataVersion masterVersion) throws IOException {
        synchronized (this) {
            if (dataVersion.equals(masterVersion)) {
                return false;
            }
            dataVersion = masterVersion;
            topics.keySet().removeIf(name -> !masterTable.containsKey(name));
            topics.putAll(masterTable);
        }
        persist();
        return true;
    }

    /**
     * A slave promoted to master starts its own history of the table: RocketMQ's
     * {@code DataVersion.nextVersion(epoch)} (state version = the new epoch, counter + 1), persisted. This is on a
     * promotion's critical path, before the NameServer registration producers wait for: with a persister attached
     * the file is written by it (within its interval, and at shutdown), not here; the version only tells the
     * NameServers and slaves that the table changed, and a restart registers afresh.
     */
    public void startStateVersion(long stateVersion) throws IOException {
        synchronized (this) {
            dataVersion = new DataVersion(stateVersion, clock.getAsLong(), dataVersion.counter() + 1);
        }
        MetadataPersister.Table deferred = deferredWrites;
        if (deferred != null) {
            deferred.markDirty();
        } else {
            persist();
        }
    }

    private void changed() throws IOException {
        synchronized (this) {
            dataVersion = dataVersion.next(clock.getAsLong());
        }
        persist();
    }

    /** A creation on a send or consumer thread: written within the persister's interval when one is attached. */
    private void changedOnSendPath() throws IOException {
        MetadataPersister.Table deferred = deferredWrites;
        if (deferred == null) {
            changed();
            return;
        }
        synchronized (this) {
            dataVersion = dataVersion.next(clock.getAsLong());
        }
        deferred.markDirty();
    }

    /** How many topics a client host may auto-create by sending; set once at start (unlimited by default). */
    public void limitSendPathCreations(TopicCreationLimiter limiter) {
        creationLimiter = limiter;
    }

    public TopicCreationLimiter creationLimiter() {
        return creationLimiter;
    }

    /**
     * From now on, topics created by sends ({@link #createTopicInSendMessageMethod}, {@link #createIfAbsent}) are
     * written by {@code persister} (batched, off the send thread) instead of synchronously. Called once at start.
     */
    public void persistSendPathChangesWith(MetadataPersister persister) {
        deferredWrites = persister.register("topics.json", this::persist);
    }

    /**
     * Puts back the topics whose consume queues are on disk but which the table lacks: a topic auto-created
     * less than one persister interval before a crash, whose acknowledged messages are in the CommitLog and
     * (after recovery) in its consume queues; or, on a slave that becomes master, a topic its old master created
     * after the last metadata sync, whose messages were replicated. Each gets {@code max queue id + 1} read and write queues and
     * READ|WRITE; system topics are left alone (the broker creates those itself). Written at once when any was
     * added.
     *
     * @param queuesOnDisk topic name to the queue ids that have a consume-queue directory
     * @return the names of the topics put back
     */
    public List<String> recoverTopicsFromQueues(Map<String, ? extends Collection<Integer>> queuesOnDisk)
        throws IOException {
        List<String> recovered = new java.util.ArrayList<>();
        for (Map.Entry<String, ? extends Collection<Integer>> e : queuesOnDisk.entrySet()) {
            String topic = e.getKey();
            if (topics.containsKey(topic) || e.getValue().isEmpty() || TopicValidator.invalidReason(topic) != null
                || systemTopics.isSystemTopic(topic)) {
                continue;
            }
            int queueNums = e.getValue().stream().mapToInt(Integer::intValue).max().getAsInt() + 1;
            if (queueNums < 1 || queueNums > 1024) {
                continue;
            }
            if (topics.putIfAbsent(topic, TopicConfig.of(topic, queueNums, Perm.READ | Perm.WRITE)) == null) {
                recovered.add(topic);
            }
        }
        if (!recovered.isEmpty()) {
            log.warn("{} topics have consume queues on disk but were missing from topics.json (created shortly before"
                + " a crash, or by the previous master after the last metadata sync); put back with READ|WRITE and as"
                + " many queues as on disk: {}", recovered.size(),
                recovered.size() <= 20 ? recovered : recovered.subList(0, 20) + " ...");
            changed();
        }
        return recovered;
    }

    /** The file content: dataVersion and the topic table. */
    public ObjectNode toJson() {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        DataVersion version = dataVersion;
        root.putObject("dataVersion").put("counter", version.counter()).put("stateVersion", version.stateVersion())
            .put("timestamp", version.timestamp());
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
