package io.basalt.broker.subscription;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

import com.fasterxml.jackson.databind.JsonNode;
import io.basalt.broker.JsonConfigFile;
import io.basalt.broker.metadata.MetadataPersister;
import io.basalt.broker.protocol.DataVersion;
import io.basalt.remoting.json.JsonException;
import io.basalt.broker.protocol.SubscriptionGroupWrapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's consumer groups, RocketMQ's {@code SubscriptionGroupManager}, persisted in
 * {@code <storePathRootDir>/config/subscriptionGroup.json} in RocketMQ's layout
 * {@code {"subscriptionGroupTable":{name: SubscriptionGroupConfig},"forbiddenTable":{group:{topic:bits}},"dataVersion":{...}}}.
 * A group unknown at its first heartbeat or pull is created with RocketMQ's defaults when
 * {@code autoCreateSubscriptionGroup} is on. {@code forbiddenTable} holds, per group and topic, RocketMQ's
 * permission bits ({@code 1 << PermName.INDEX_PERM_*}) taken from that group on that topic; a pull checks the read
 * bit. Reads may come from any thread; changes are serialised and persisted at once (auto-created groups
 * by the background persister once {@link #persistAutoCreatedGroupsWith} was called).
 */
public final class SubscriptionGroupManager {
    private static final Logger log = LoggerFactory.getLogger(SubscriptionGroupManager.class);
    static final String FILE_NAME = "subscriptionGroup.json";
    /**
     * The groups RocketMQ's broker has from the start (its {@code SubscriptionGroupManager.init()}): in memory,
     * written with the first change, and overridden by the file's versions.
     */
    static final List<String> SYSTEM_GROUPS = List.of("TOOLS_CONSUMER", "FILTERSRV_CONSUMER", "SELF_TEST_C_GROUP",
        "CID_ONS-HTTP-PROXY", "CID_ONSAPI_PULL", "CID_ONSAPI_PERMISSION", "CID_ONSAPI_OWNER", "CID_RMQ_SYS_TRANS");

    private final ConcurrentMap<String, SubscriptionGroupConfig> groups = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Map<String, Integer>> forbiddenTable = new ConcurrentHashMap<>();
    private final JsonConfigFile file;
    /** Changed at runtime by UPDATE_BROKER_CONFIG; read on every lookup that may create. */
    private volatile boolean autoCreateSubscriptionGroup;
    private final LongSupplier clock;
    /** Written only under this object's lock. */
    private volatile DataVersion dataVersion;
    /** Set once at start: where auto-created groups go instead of a synchronous write; null writes at once. */
    private volatile MetadataPersister.Table deferredWrites;

    SubscriptionGroupManager(JsonConfigFile file, boolean autoCreateSubscriptionGroup, LongSupplier clock) {
        this.file = file;
        this.autoCreateSubscriptionGroup = autoCreateSubscriptionGroup;
        this.clock = clock;
        this.dataVersion = new DataVersion(0, clock.getAsLong(), 0);
    }

    /**
     * Loads {@code <configDir>/subscriptionGroup.json} (or its backup) over RocketMQ's system groups.
     *
     * @throws IOException when the file and its backup are both corrupt
     */
    public static SubscriptionGroupManager open(Path configDir, boolean autoCreateSubscriptionGroup) throws IOException {
        SubscriptionGroupManager m = new SubscriptionGroupManager(new JsonConfigFile(configDir.resolve(FILE_NAME),
            SubscriptionGroupManager::checkGroups),
            autoCreateSubscriptionGroup, System::currentTimeMillis);
        m.load();
        return m;
    }

    /**
     * The table must read as RocketMQ's subscription groups, each count a whole number in its range
     * (retryQueueNums, brokerId, whichBrokerWhenConsumeSlowly, consumeTimeoutMinute, groupSysFlag ≥ 0,
     * retryMaxTimes ≥ -1) and each forbidden-table entry a whole number ≥ 0: otherwise the file counts as
     * corrupt (its backup is used, or start-up stops) instead of a group silently losing its retries or
     * reading from the wrong broker.
     */
    static void checkGroups(JsonNode content) throws IOException {
        SubscriptionGroupWrapper wrapper;
        try {
            wrapper = SubscriptionGroupWrapper.fromJson(JsonConfigFile.MAPPER.convertValue(content, Object.class));
        } catch (JsonException | IllegalArgumentException | ClassCastException e) {
            throw new IOException("not a subscription group table: " + e.getMessage());
        }
        for (Map.Entry<String, SubscriptionGroupConfig> e : wrapper.subscriptionGroupTable().entrySet()) {
            SubscriptionGroupConfig c = e.getValue();
            String bad = c.retryQueueNums() < 0 ? "retryQueueNums " + c.retryQueueNums()
                : c.retryMaxTimes() < -1 ? "retryMaxTimes " + c.retryMaxTimes()
                : c.brokerId() < 0 ? "brokerId " + c.brokerId()
                : c.whichBrokerWhenConsumeSlowly() < 0 ? "whichBrokerWhenConsumeSlowly " + c.whichBrokerWhenConsumeSlowly()
                : c.consumeTimeoutMinute() < 0 ? "consumeTimeoutMinute " + c.consumeTimeoutMinute()
                : c.groupSysFlag() < 0 ? "groupSysFlag " + c.groupSysFlag() : null;
            if (bad != null) {
                throw new IOException("group " + e.getKey() + ": " + bad + " is out of range");
            }
        }
        JsonNode forbidden = content.path("forbiddenTable");
        if (!forbidden.isMissingNode() && !forbidden.isNull()) {
            if (!forbidden.isObject()) {
                throw new IOException("forbiddenTable is not an object");
            }
            for (var groups = forbidden.fields(); groups.hasNext(); ) {
                var group = groups.next();
                if (!group.getValue().isObject()) {
                    throw new IOException("forbiddenTable of group " + group.getKey() + " is not an object");
                }
                for (var topics = group.getValue().fields(); topics.hasNext(); ) {
                    var topic = topics.next();
                    JsonNode v = topic.getValue();
                    if (!v.isIntegralNumber() || !v.canConvertToInt() || v.intValue() < 0) {
                        throw new IOException("forbiddenTable of group " + group.getKey() + ", topic " + topic.getKey()
                            + " is " + v + ", not a whole number ≥ 0");
                    }
                }
            }
        }
    }

    private void load() throws IOException {
        for (String group : SYSTEM_GROUPS) {
            groups.put(group, SubscriptionGroupConfig.defaults(group));
        }
        Optional<JsonNode> content = file.load();
        if (content.isEmpty()) {
            return;
        }
        JsonNode root = content.get();
        SubscriptionGroupWrapper wrapper;
        try {
            wrapper = SubscriptionGroupWrapper.fromJson(JsonConfigFile.MAPPER.convertValue(root, Object.class));
        } catch (JsonException e) {
            throw new IOException(file.path() + " is not a subscription group table: " + e.getMessage(), e);
        }
        groups.putAll(wrapper.subscriptionGroupTable());
        dataVersion = wrapper.dataVersion();
        root.path("forbiddenTable").fields().forEachRemaining(group -> {
            Map<String, Integer> topics = new TreeMap<>();
            group.getValue().fields().forEachRemaining(topic -> topics.put(topic.getKey(), topic.getValue().asInt()));
            forbiddenTable.put(group.getKey(), Collections.unmodifiableMap(topics));
        });
        log.info("loaded {} subscription groups from {}", wrapper.subscriptionGroupTable().size(), file.path());
    }

    /** The group's config, without creating it. */
    public Optional<SubscriptionGroupConfig> get(String group) {
        return group == null ? Optional.empty() : Optional.ofNullable(groups.get(group));
    }

    /** Turns auto-creation of consumer groups on or off while the broker runs (UPDATE_BROKER_CONFIG). */
    public void setAutoCreateSubscriptionGroup(boolean enable) {
        autoCreateSubscriptionGroup = enable;
    }

    /**
     * RocketMQ's {@code findSubscriptionGroupConfig}: the group's config, created with the defaults when it is
     * missing, its name is valid and auto-creation is on (always, for {@code CID_RMQ_SYS_*} groups).
     *
     * @return empty when the group does not exist and may not be created
     * @throws IOException when persisting a created group fails (it stays created in memory)
     */
    public Optional<SubscriptionGroupConfig> findOrAutoCreate(String group) throws IOException {
        Optional<SubscriptionGroupConfig> existing = get(group);
        if (existing.isPresent() || group == null || GroupValidator.invalidReason(group) != null
            || !(autoCreateSubscriptionGroup || GroupValidator.isSystemGroup(group))) {
            return existing;
        }
        return Optional.of(autoCreate(group));
    }

    private synchronized SubscriptionGroupConfig autoCreate(String group) throws IOException {
        SubscriptionGroupConfig created = SubscriptionGroupConfig.defaults(group);
        SubscriptionGroupConfig winner = groups.putIfAbsent(group, created);
        if (winner != null) {
            return winner;
        }
        log.info("auto-created subscription group {}", group);
        MetadataPersister.Table deferred = deferredWrites;
        if (deferred == null) {
            changed();
        } else {
            // a heartbeat or pull thread: the group's defaults come back with its next heartbeat if a crash takes them
            dataVersion = dataVersion.next(clock.getAsLong());
            deferred.markDirty();
        }
        return created;
    }

    /** Creates or replaces a group (admin UPDATE_AND_CREATE_SUBSCRIPTIONGROUP); the caller has validated it. */
    public synchronized void createOrUpdate(SubscriptionGroupConfig config) throws IOException {
        SubscriptionGroupConfig old = groups.put(config.groupName(), config);
        log.info("{} subscription group {}: {}", old == null ? "created" : "updated", config.groupName(), config);
        changed();
    }

    /** Removes a group and its forbidden topics; true if it existed. */
    public synchronized boolean delete(String group) throws IOException {
        forbiddenTable.remove(group);
        SubscriptionGroupConfig old = groups.remove(group);
        if (old == null) {
            return false;
        }
        log.info("deleted subscription group {}", group);
        changed();
        return true;
    }

    /** RocketMQ's {@code PermName.INDEX_PERM_READ}: the bit of {@link #forbiddenTable} a pull checks. */
    public static final int INDEX_PERM_READ = 2;

    /** True when {@code group} may not read {@code topic} (RocketMQ's {@code getForbidden(group, topic, INDEX_PERM_READ)}). */
    public boolean isReadForbidden(String group, String topic) {
        Map<String, Integer> topics = forbiddenTable.get(group);
        Integer bits = topics == null ? null : topics.get(topic);
        return bits != null && (bits & (1 << INDEX_PERM_READ)) != 0;
    }

    /**
     * Takes reading {@code topic} from {@code group} or gives it back (admin UPDATE_AND_GET_GROUP_FORBIDDEN).
     * The other permission bits of the pair stay as they are; a pair left with none is removed.
     */
    public synchronized void setReadForbidden(String group, String topic, boolean forbidden) throws IOException {
        Map<String, Integer> topics = new TreeMap<>(forbiddenTable.getOrDefault(group, Map.of()));
        int old = topics.getOrDefault(topic, 0);
        int bits = forbidden ? old | (1 << INDEX_PERM_READ) : old & ~(1 << INDEX_PERM_READ);
        if (bits == old) {
            return;
        }
        if (bits == 0) {
            topics.remove(topic);
        } else {
            topics.put(topic, bits);
        }
        if (topics.isEmpty()) {
            forbiddenTable.remove(group);
        } else {
            forbiddenTable.put(group, Collections.unmodifiableMap(topics));
        }
        log.info("{} group {} reading topic {} (forbidden bits {} -> {})", forbidden ? "forbade" : "allowed", group,
            topic, old, bits);
        changed();
    }

    /** Every group sorted by name, with the table's version (the GET_ALL_SUBSCRIPTIONGROUP_CONFIG body). */
    public synchronized SubscriptionGroupWrapper snapshot() {
        Map<String, SubscriptionGroupConfig> table = new LinkedHashMap<>();
        groups.values().stream().sorted(Comparator.comparing(SubscriptionGroupConfig::groupName))
            .forEach(config -> table.put(config.groupName(), config));
        return new SubscriptionGroupWrapper(table, dataVersion);
    }

    public DataVersion dataVersion() {
        return dataVersion;
    }

    /**
     * A slave takes its master's groups (RocketMQ's {@code SlaveSynchronize.syncSubscriptionGroupConfig}), only
     * when the master's version differs: the version becomes the master's, the table holds exactly the master's
     * groups (RocketMQ clears and fills it; removing the others instead never shows a pull an empty table), and the
     * file is written. The forbidden table is not part of the master's answer and stays.
     *
     * @return true when the table was replaced
     */
    public synchronized boolean replaceFromMaster(Map<String, SubscriptionGroupConfig> masterTable,
                                                  DataVersion masterVersion) throws IOException {
        if (dataVersion.equals(masterVersion)) {
            return false;
        }
        dataVersion = masterVersion;
        groups.keySet().retainAll(masterTable.keySet());
        groups.putAll(masterTable);
        persist();
        return true;
    }

    private void changed() throws IOException {
        dataVersion = dataVersion.next(clock.getAsLong());
        persist();
    }

    /**
     * From now on, groups auto-created by heartbeats and pulls are written by {@code persister} (batched, off the
     * request threads); admin changes are still written before they return. Called once at start.
     */
    public void persistAutoCreatedGroupsWith(MetadataPersister persister) {
        deferredWrites = persister.register("subscriptionGroup.json", this::persist);
    }

    /** Writes subscriptionGroup.json atomically, keeping the previous valid content as its backup. */
    public synchronized void persist() throws IOException {
        Map<String, Object> content = new TreeMap<>(snapshot().toJson());
        content.put("forbiddenTable", new TreeMap<>(forbiddenTable));
        file.store(JsonConfigFile.MAPPER.valueToTree(content));
    }
}
