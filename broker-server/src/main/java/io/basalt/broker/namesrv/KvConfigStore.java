package io.basalt.broker.namesrv;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.basalt.broker.JsonConfigFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The NameServer's KV configuration (namespace → key → value), served by a broker that is its own NameServer:
 * PUT/GET/DELETE_KV_CONFIG and GET_KVLIST_BY_NAMESPACE, and namespace {@code ORDER_TOPIC_CONFIG} for routes. Kept
 * in RocketMQ's {@code kvConfig.json} format, {@code {"configTable":{"ns":{"k":"v"}}}}, rewritten atomically (with
 * a backup) after every change, before the change is answered. Thread-safe.
 */
public final class KvConfigStore {

    /** RocketMQ's namespace of globally ordered topics: topic → {@code brokerName:queueNums;…}. */
    public static final String ORDER_TOPIC_CONFIG = "ORDER_TOPIC_CONFIG";

    private final JsonConfigFile file;
    private final Map<String, Map<String, String>> table = new TreeMap<>();

    private KvConfigStore(JsonConfigFile file) {
        this.file = file;
    }

    /** Loads {@code file} (or its backup); an absent file is an empty table. */
    public static KvConfigStore open(Path file) throws IOException {
        KvConfigStore store = new KvConfigStore(new JsonConfigFile(file));
        Optional<JsonNode> content = store.file.load();
        content.map(root -> root.path("configTable")).filter(JsonNode::isObject).ifPresent(namespaces ->
            namespaces.fields().forEachRemaining(ns -> {
                Map<String, String> entries = new TreeMap<>();
                ns.getValue().fields().forEachRemaining(kv -> entries.put(kv.getKey(), kv.getValue().asText()));
                store.table.put(ns.getKey(), entries);
            }));
        return store;
    }

    public Path path() {
        return file.path();
    }

    public synchronized void put(String namespace, String key, String value) throws IOException {
        Map<String, String> entries = table.computeIfAbsent(namespace, ns -> new TreeMap<>());
        String previous = entries.put(key, value);
        try {
            persist();
        } catch (IOException e) {
            if (previous == null) {
                entries.remove(key);
            } else {
                entries.put(key, previous);
            }
            throw e;
        }
    }

    public synchronized Optional<String> get(String namespace, String key) {
        Map<String, String> entries = table.get(namespace);
        return entries == null ? Optional.empty() : Optional.ofNullable(entries.get(key));
    }

    /** Removes the entry if present (RocketMQ answers SUCCESS either way). */
    public synchronized void delete(String namespace, String key) throws IOException {
        Map<String, String> entries = table.get(namespace);
        if (entries == null || !entries.containsKey(key)) {
            return;
        }
        String previous = entries.remove(key);
        if (entries.isEmpty()) {
            table.remove(namespace);
        }
        try {
            persist();
        } catch (IOException e) {
            table.computeIfAbsent(namespace, ns -> new TreeMap<>()).put(key, previous);
            throw e;
        }
    }

    /** The namespace's entries, or empty when it has none. */
    public synchronized Optional<Map<String, String>> namespace(String namespace) {
        Map<String, String> entries = table.get(namespace);
        return entries == null || entries.isEmpty() ? Optional.empty() : Optional.of(new LinkedHashMap<>(entries));
    }

    private void persist() throws IOException {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ObjectNode namespaces = root.putObject("configTable");
        table.forEach((namespace, entries) -> {
            ObjectNode node = namespaces.putObject(namespace);
            entries.forEach(node::put);
        });
        file.store(root);
    }
}
