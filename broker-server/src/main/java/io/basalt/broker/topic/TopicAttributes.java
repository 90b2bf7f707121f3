package io.basalt.broker.topic;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * RocketMQ 5.2.0's topic attributes ({@code TopicAttributes.ALL}) and its rules for changing them
 * ({@code AttributeParser}, {@code AttributeUtil}), with one addition: a value whose behaviour Basalt does not
 * implement is refused, naming it, instead of being stored and ignored.
 *
 * <table>
 *   <caption>the attributes</caption>
 *   <tr><th>key</th><th>values</th><th>default</th><th>changeable after creation</th><th>Basalt</th></tr>
 *   <tr><td>{@code queue.type}</td><td>BatchCQ, SimpleCQ</td><td>SimpleCQ</td><td>no</td><td>SimpleCQ only</td></tr>
 *   <tr><td>{@code cleanup.policy}</td><td>DELETE, COMPACTION</td><td>DELETE</td><td>no</td><td>DELETE only</td></tr>
 *   <tr><td>{@code message.type}</td><td>UNSPECIFIED, NORMAL, FIFO, DELAY, TRANSACTION, MIXED</td><td>NORMAL</td>
 *   <td>yes</td><td>all, stored and reported; like RocketMQ's broker, Basalt does not check sends against it</td></tr>
 * </table>
 * Stateless; any thread.
 */
public final class TopicAttributes {
    public static final String QUEUE_TYPE = "queue.type";
    public static final String CLEANUP_POLICY = "cleanup.policy";
    public static final String MESSAGE_TYPE = "message.type";

    /** One attribute: RocketMQ's EnumAttribute, plus the values Basalt refuses and why. */
    private record Attribute(String name, boolean changeable, Set<String> values, String defaultValue,
                             Map<String, String> unsupported) {
    }

    private static final Map<String, Attribute> ALL = table(
        new Attribute(QUEUE_TYPE, false, orderedSet("BatchCQ", "SimpleCQ"), "SimpleCQ", Map.of("BatchCQ",
            "Basalt has no batch consume queues: its topics use RocketMQ's simple consume queue (SimpleCQ)")),
        new Attribute(CLEANUP_POLICY, false, orderedSet("DELETE", "COMPACTION"), "DELETE", Map.of("COMPACTION",
            "Basalt has no compaction: retention would delete a compacted topic's latest values with its CommitLog"
                + " files; its topics use the DELETE policy")),
        new Attribute(MESSAGE_TYPE, true, orderedSet("UNSPECIFIED", "NORMAL", "FIFO", "DELAY", "TRANSACTION", "MIXED"),
            "NORMAL", Map.of()));

    private TopicAttributes() {
    }

    /**
     * The attributes of a topic after an UPDATE_AND_CREATE_TOPIC's {@code attributes} header, as RocketMQ
     * computes them: {@code +key=value} adds or replaces, {@code -key} removes, items separated by commas; on
     * creation only {@code +} is allowed; an unchangeable attribute may only be given at creation.
     *
     * @param create       whether the topic does not exist yet
     * @param current      the topic's attributes (empty on creation)
     * @param modification the header, or null/blank for no change
     * @throws IllegalArgumentException with RocketMQ's text for a malformed or disallowed change, or naming a
     *                                  value Basalt does not implement
     */
    public static Map<String, String> alter(boolean create, Map<String, String> current, String modification) {
        Map<String, String> result = new HashMap<>(current);
        for (Map.Entry<String, String> change : parse(modification).entrySet()) {
            String key = change.getKey().substring(1);
            boolean add = change.getKey().charAt(0) == '+';
            if (create && !add) {
                throw new IllegalArgumentException("only add attribute is supported while creating topic. key: " + key);
            }
            Attribute attribute = ALL.get(key);
            if (attribute == null) {
                throw new IllegalArgumentException("unsupported key: " + key + " (topic attributes are " + ALL.keySet() + ")");
            }
            if (!create && !attribute.changeable()) {
                throw new IllegalArgumentException("attempt to update an unchangeable attribute. key: " + key);
            }
            if (add) {
                String value = change.getValue();
                verify(attribute, value).ifPresent(reason -> {
                    throw new IllegalArgumentException(reason);
                });
                result.put(key, value);
            } else {
                if (!current.containsKey(key)) {
                    throw new IllegalArgumentException("attempt to delete a nonexistent key: " + key);
                }
                result.remove(key);
            }
        }
        return result;
    }

    /**
     * Why a topic with these stored attributes (from topics.json) cannot be served as they say, or empty when it
     * can: an unknown key, a value outside the attribute's set, or a value Basalt does not implement.
     */
    public static Optional<String> unsupported(Map<String, String> attributes) {
        for (Map.Entry<String, String> e : attributes.entrySet()) {
            Attribute attribute = ALL.get(e.getKey());
            if (attribute == null) {
                return Optional.of("unsupported key: " + e.getKey() + " (topic attributes are " + ALL.keySet() + ")");
            }
            Optional<String> reason = verify(attribute, e.getValue());
            if (reason.isPresent()) {
                return reason;
            }
        }
        return Optional.empty();
    }

    private static Optional<String> verify(Attribute attribute, String value) {
        if (!attribute.values().contains(value)) {
            return Optional.of("value is not in set: " + attribute.values() + " (attribute " + attribute.name() + "="
                + value + ")");
        }
        String reason = attribute.unsupported().get(value);
        return reason == null ? Optional.empty()
            : Optional.of(attribute.name() + "=" + value + " is not supported: " + reason);
    }

    /**
     * RocketMQ's {@code AttributeParser.parseToMap}: each comma-separated item is {@code +key=value} or
     * {@code -key}; keys in the result keep their sign. A key may appear once.
     */
    static Map<String, String> parse(String modification) {
        Map<String, String> changes = new LinkedHashMap<>();
        if (modification == null || modification.isBlank()) {
            return changes;
        }
        for (String item : modification.split(",")) {
            String kv = item.trim();
            String key;
            String value;
            int eq = kv.indexOf('=');
            if (eq >= 0) {
                key = kv.substring(0, eq);
                value = kv.substring(eq + 1);
                if (!key.startsWith("+") || value.isEmpty() || value.contains("=")) {
                    throw new IllegalArgumentException("add/alter attribute format is wrong: " + kv
                        + " (write +key=value)");
                }
            } else {
                key = kv;
                value = "";
                if (!key.startsWith("-")) {
                    throw new IllegalArgumentException("delete attribute format is wrong: " + key + " (write -key)");
                }
            }
            String realKey = key.substring(1);
            if (realKey.isEmpty() || realKey.contains("+") || realKey.contains("-")) {
                throw new IllegalArgumentException("kv string format wrong. (" + kv + ")");
            }
            if (changes.containsKey("+" + realKey) || changes.containsKey("-" + realKey)) {
                throw new IllegalArgumentException("alter duplication key. key: " + realKey);
            }
            changes.put(key, value);
        }
        return changes;
    }

    private static Map<String, Attribute> table(Attribute... attributes) {
        Map<String, Attribute> table = new LinkedHashMap<>();
        for (Attribute a : attributes) {
            table.put(a.name(), a);
        }
        return java.util.Collections.unmodifiableMap(table);
    }

    private static Set<String> orderedSet(String... values) {
        return java.util.Collections.unmodifiableSet(new LinkedHashSet<>(List.of(values)));
    }
}
