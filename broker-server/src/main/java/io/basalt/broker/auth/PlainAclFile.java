package io.basalt.broker.auth;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.representer.Representer;

import io.basalt.common.io.Directories;

/**
 * One ACL 1.0 file in RocketMQ's format ({@code plain_acl.yml}, or a file of the ACL directory): the global white
 * addresses, the accounts and the data version. Read with the YAML parser RocketMQ uses; every rule is checked at
 * load with a message that names the file, the line and the rule, where RocketMQ fails with an unrelated exception
 * (apache/rocketmq#1379) or silently reads a typo as DENY:
 *
 * <ul>
 * <li>top-level keys {@code globalWhiteRemoteAddresses}, {@code accounts}, {@code dataVersion}; account keys
 *     {@code accessKey}, {@code secretKey}, {@code whiteRemoteAddress}, {@code admin}, {@code defaultTopicPerm},
 *     {@code defaultGroupPerm}, {@code topicPerms}, {@code groupPerms}; anything else is a typo and refused;</li>
 * <li>keys of at least 7 characters; an accessKey once per file;</li>
 * <li>permissions as {@link Permission#parse} reads them; a default permission left out is DENY (RocketMQ's);</li>
 * <li>{@code topic=PERM} entries with exactly one {@code =}; address rules as {@link AddressPattern#parse}.</li>
 * </ul>
 *
 * An unquoted {@code *} is a YAML alias: the error says to quote it (apache/rocketmq#4540). Immutable.
 */
public final class PlainAclFile {
    private static final Set<String> TOP_KEYS = Set.of("globalWhiteRemoteAddresses", "accounts", "dataVersion");
    private static final Set<String> ACCOUNT_KEYS = Set.of("accessKey", "secretKey", "whiteRemoteAddress", "admin",
        "defaultTopicPerm", "defaultGroupPerm", "topicPerms", "groupPerms");
    /** RocketMQ's retry-topic prefix: a group's permission is checked on {@code %RETRY%<group>}. */
    static final String RETRY_PREFIX = "%RETRY%";

    /** {@code dataVersion}: RocketMQ bumps the counter at every admin change. */
    public record DataVersion(long counter, long timestamp) {
        public static final DataVersion NONE = new DataVersion(0, 0);

        DataVersion next(long now) {
            return new DataVersion(counter + 1, now);
        }
    }

    private final Path path;
    private final List<String> globalWhiteRemoteAddresses;
    private final List<AddressPattern> globalWhite;
    private final List<PlainAccount> accounts;
    private final DataVersion dataVersion;

    PlainAclFile(Path path, List<String> globalWhiteRemoteAddresses, List<PlainAccount> accounts, DataVersion dataVersion) {
        this.path = path;
        this.globalWhiteRemoteAddresses = List.copyOf(globalWhiteRemoteAddresses);
        this.globalWhite = globalWhiteRemoteAddresses.stream().map(AddressPattern::parse).toList();
        this.accounts = List.copyOf(accounts);
        this.dataVersion = dataVersion;
    }

    /** A file with nothing in it (a new default file). */
    public static PlainAclFile empty(Path path) {
        return new PlainAclFile(path, List.of(), List.of(), DataVersion.NONE);
    }

    public Path path() {
        return path;
    }

    public List<String> globalWhiteRemoteAddresses() {
        return globalWhiteRemoteAddresses;
    }

    List<AddressPattern> globalWhite() {
        return globalWhite;
    }

    public List<PlainAccount> accounts() {
        return accounts;
    }

    public DataVersion dataVersion() {
        return dataVersion;
    }

    /**
     * Reads and checks {@code path}.
     *
     * @throws AclConfigException what is wrong, with the file and the line
     * @throws IOException        the file cannot be read
     */
    public static PlainAclFile read(Path path) throws IOException {
        return parse(path, Files.readString(path, StandardCharsets.UTF_8));
    }

    static PlainAclFile parse(Path path, String text) {
        Node root;
        try (Reader reader = new StringReader(text)) {
            LoaderOptions options = new LoaderOptions();
            options.setAllowDuplicateKeys(false);
            root = new Yaml(new SafeConstructor(options)).compose(reader);
        } catch (MarkedYAMLException e) {
            boolean alias = e.getProblem() != null && e.getProblem().contains("alias")
                || e.getContext() != null && e.getContext().contains("alias");
            String hint = alias ? " (an unquoted * is a YAML alias: write \"*\")" : "";
            throw new AclConfigException(path + ":" + (e.getProblemMark() == null ? "?" : e.getProblemMark().getLine() + 1)
                + ": not valid YAML: " + e.getProblem() + hint);
        } catch (YAMLException | IOException e) {
            throw new AclConfigException(path + ": not valid YAML: " + e.getMessage());
        }
        if (root == null) {
            return empty(path);
        }
        Reading r = new Reading(path);
        Map<String, Node> top = r.mapping(root, "the file", TOP_KEYS);
        List<String> white = new ArrayList<>();
        Node whiteNode = top.get("globalWhiteRemoteAddresses");
        if (whiteNode != null) {
            for (Node item : r.sequence(whiteNode, "globalWhiteRemoteAddresses")) {
                String rule = r.scalar(item, "a global white address");
                r.address(item, rule);
                white.add(rule);
            }
        }
        List<PlainAccount> accounts = new ArrayList<>();
        Set<String> keys = new java.util.HashSet<>();
        Node accountsNode = top.get("accounts");
        if (accountsNode != null) {
            for (Node item : r.sequence(accountsNode, "accounts")) {
                PlainAccount account = r.account(item);
                if (!keys.add(account.accessKey())) {
                    throw r.error(item, "accessKey " + account.accessKey() + " is defined twice");
                }
                accounts.add(account);
            }
        }
        DataVersion version = DataVersion.NONE;
        Node versionNode = top.get("dataVersion");
        if (versionNode != null) {
            List<Node> entries = r.sequence(versionNode, "dataVersion");
            if (!entries.isEmpty()) {
                Map<String, Node> v = r.mapping(entries.get(0), "dataVersion", Set.of("counter", "timestamp"));
                version = new DataVersion(r.number(v.get("counter"), "counter"), r.number(v.get("timestamp"), "timestamp"));
            }
        }
        return new PlainAclFile(path, white, accounts, version);
    }

    /** This file with {@code account} added or put in place of the one with its accessKey, and the version bumped. */
    PlainAclFile withAccount(PlainAccount account, long now) {
        List<PlainAccount> next = new ArrayList<>();
        boolean replaced = false;
        for (PlainAccount a : accounts) {
            if (a.accessKey().equals(account.accessKey())) {
                next.add(account);
                replaced = true;
            } else {
                next.add(a);
            }
        }
        if (!replaced) {
            next.add(account);
        }
        return new PlainAclFile(path, globalWhiteRemoteAddresses, next, dataVersion.next(now));
    }

    /** This file without the account {@code accessKey}, and the version bumped. */
    PlainAclFile withoutAccount(String accessKey, long now) {
        List<PlainAccount> next = accounts.stream().filter(a -> !a.accessKey().equals(accessKey)).toList();
        return new PlainAclFile(path, globalWhiteRemoteAddresses, next, dataVersion.next(now));
    }

    /** This file with its global white addresses replaced (each checked), and the version bumped. */
    PlainAclFile withGlobalWhite(List<String> rules, long now) {
        rules.forEach(AddressPattern::parse);
        return new PlainAclFile(path, rules, accounts, dataVersion.next(now));
    }

    /** Writes this content to {@link #path()}, replacing the file atomically (temp file, fsync, rename). */
    void write() throws IOException {
        Directories.replaceDurably(path, toYaml().getBytes(StandardCharsets.UTF_8));
    }

    /** The file's text, in RocketMQ's layout. */
    String toYaml() {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("globalWhiteRemoteAddresses", new ArrayList<>(globalWhiteRemoteAddresses));
        List<Map<String, Object>> list = new ArrayList<>();
        for (PlainAccount a : accounts) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("accessKey", a.accessKey());
            m.put("secretKey", a.secretKey());
            if (!a.whiteRemoteAddress().toString().isEmpty()) {
                m.put("whiteRemoteAddress", a.whiteRemoteAddress().toString());
            }
            m.put("admin", a.admin());
            m.put("defaultTopicPerm", Permission.name(a.defaultTopicPerm()));
            m.put("defaultGroupPerm", Permission.name(a.defaultGroupPerm()));
            m.put("topicPerms", perms(a.topicPerms()));
            m.put("groupPerms", perms(a.groupPerms()));
            list.add(m);
        }
        root.put("accounts", list);
        Map<String, Object> version = new LinkedHashMap<>();
        version.put("counter", dataVersion.counter());
        version.put("timestamp", dataVersion.timestamp());
        root.put("dataVersion", List.of(version));
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        options.setIndicatorIndent(2);
        options.setIndentWithIndicator(true);
        return new Yaml(new Representer(options), options).dump(root);
    }

    private static List<String> perms(Map<String, Byte> perms) {
        return perms.entrySet().stream().sorted(Map.Entry.comparingByKey())
            .map(e -> e.getKey() + "=" + Permission.name(e.getValue())).toList();
    }

    /** The walk over the parsed nodes, with the file's name and each node's line for errors. */
    private static final class Reading {
        private final Path path;

        Reading(Path path) {
            this.path = path;
        }

        AclConfigException error(Node node, String what) {
            return new AclConfigException(path + ":" + (node.getStartMark().getLine() + 1) + ": " + what);
        }

        Map<String, Node> mapping(Node node, String what, Set<String> allowed) {
            if (!(node instanceof MappingNode m)) {
                throw error(node, what + " must be a mapping of keys to values");
            }
            Map<String, Node> out = new HashMap<>();
            for (NodeTuple t : m.getValue()) {
                String key = scalar(t.getKeyNode(), "a key");
                if (!allowed.contains(key)) {
                    throw error(t.getKeyNode(), "unknown key '" + key + "' in " + what + " (known: " + allowed + ")");
                }
                out.put(key, t.getValueNode());
            }
            return out;
        }

        List<Node> sequence(Node node, String what) {
            if (node instanceof ScalarNode s && s.getValue().isEmpty()) {
                return List.of();
            }
            if (!(node instanceof SequenceNode s)) {
                throw error(node, what + " must be a list");
            }
            return s.getValue();
        }

        String scalar(Node node, String what) {
            if (!(node instanceof ScalarNode s)) {
                throw error(node, what + " must be a single value");
            }
            return s.getValue();
        }

        long number(Node node, String what) {
            if (node == null) {
                return 0;
            }
            String text = scalar(node, what);
            try {
                return Long.parseLong(text.trim());
            } catch (NumberFormatException e) {
                throw error(node, what + " '" + text + "' is not a number");
            }
        }

        void address(Node node, String rule) {
            try {
                AddressPattern.parse(rule);
            } catch (IllegalArgumentException e) {
                throw error(node, e.getMessage());
            }
        }

        PlainAccount account(Node node) {
            Map<String, Node> a = mapping(node, "an account", ACCOUNT_KEYS);
            String accessKey = key(a, node, "accessKey");
            String secretKey = key(a, node, "secretKey");
            AddressPattern white = AddressPattern.NONE;
            Node whiteNode = a.get("whiteRemoteAddress");
            if (whiteNode != null) {
                String rule = scalar(whiteNode, "whiteRemoteAddress");
                address(whiteNode, rule);
                white = AddressPattern.parse(rule);
            }
            boolean admin = false;
            Node adminNode = a.get("admin");
            if (adminNode != null) {
                String text = scalar(adminNode, "admin").trim();
                if (!text.equals("true") && !text.equals("false")) {
                    throw error(adminNode, "admin '" + text + "' is not true or false");
                }
                admin = Boolean.parseBoolean(text);
            }
            byte defaultTopic = permission(a.get("defaultTopicPerm"), "defaultTopicPerm");
            byte defaultGroup = permission(a.get("defaultGroupPerm"), "defaultGroupPerm");
            Map<String, Byte> topics = entries(a.get("topicPerms"), "topicPerms", false);
            Map<String, Byte> groups = entries(a.get("groupPerms"), "groupPerms", true);
            return new PlainAccount(accessKey, secretKey, white, admin, defaultTopic, defaultGroup, topics, groups,
                path.toString());
        }

        private String key(Map<String, Node> account, Node node, String name) {
            Node value = account.get(name);
            if (value == null) {
                throw error(node, "an account without " + name);
            }
            String text = scalar(value, name).trim();
            if (text.length() < PlainAccount.MIN_KEY_LENGTH) {
                throw error(value, name + (name.equals("accessKey") ? " '" + text + "'" : "") + " has " + text.length()
                    + " characters; at least " + PlainAccount.MIN_KEY_LENGTH + " are needed");
            }
            return text;
        }

        private byte permission(Node node, String what) {
            if (node == null) {
                return Permission.DENY;
            }
            try {
                return Permission.parse(scalar(node, what));
            } catch (IllegalArgumentException e) {
                throw error(node, what + ": " + e.getMessage());
            }
        }

        private Map<String, Byte> entries(Node node, String what, boolean groups) {
            Map<String, Byte> out = new HashMap<>();
            if (node == null) {
                return out;
            }
            for (Node item : sequence(node, what)) {
                String entry = scalar(item, "an entry of " + what);
                String[] parts = entry.split("=", -1);
                if (parts.length != 2 || parts[0].trim().isEmpty()) {
                    throw error(item, what + " entry '" + entry + "' is not name=PERM");
                }
                String name = parts[0].trim();
                if (groups && name.startsWith(RETRY_PREFIX)) {
                    name = name.substring(RETRY_PREFIX.length());
                }
                try {
                    out.put(name, Permission.parse(parts[1]));
                } catch (IllegalArgumentException e) {
                    throw error(item, what + " entry '" + entry + "': " + e.getMessage());
                }
            }
            return out;
        }
    }
}
