package io.basalt.broker.auth;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.basalt.broker.JsonConfigFile;
import io.basalt.broker.auth.AuthModel.Acl;
import io.basalt.broker.auth.AuthModel.Decision;
import io.basalt.broker.auth.AuthModel.Policy;
import io.basalt.broker.auth.AuthModel.PolicyEntry;
import io.basalt.broker.auth.AuthModel.PolicyType;
import io.basalt.broker.auth.AuthModel.User;
import io.basalt.broker.auth.AuthModel.UserStatus;
import io.basalt.broker.auth.AuthModel.UserType;

/**
 * ACL 2.0's users and ACLs, kept in memory and in two JSON files under the store's {@code config} directory
 * ({@code authUsers.json}, {@code authAcls.json}), each written atomically with a backup ({@link JsonConfigFile}).
 * RocketMQ 5.3 keeps them in RocksDB directories of the same {@code config} directory, which Basalt does not read:
 * a store moved from RocketMQ 5.3 brings no users (create them again, or migrate ACL 1.0 files with
 * {@code migrateAuthFromV1Enabled}). Readers get immutable maps; writers are serialised.
 */
final class AuthStore {
    static final String USERS_FILE = "authUsers.json";
    static final String ACLS_FILE = "authAcls.json";

    private final JsonConfigFile usersFile;
    private final JsonConfigFile aclsFile;
    private volatile Map<String, User> users = Map.of();
    private volatile Map<String, Acl> acls = Map.of();

    private AuthStore(Path configDir) {
        this.usersFile = new JsonConfigFile(configDir.resolve(USERS_FILE));
        this.aclsFile = new JsonConfigFile(configDir.resolve(ACLS_FILE));
    }

    /**
     * Loads the files of {@code configDir} (none yet: no users).
     *
     * @throws IOException a file that cannot be read or does not hold users or ACLs (the broker then does not start)
     */
    static AuthStore open(Path configDir) throws IOException {
        AuthStore store = new AuthStore(configDir);
        Map<String, User> users = new TreeMap<>();
        Optional<JsonNode> u = store.usersFile.load();
        if (u.isPresent()) {
            for (JsonNode n : u.get().path("users")) {
                User user = userOf(n, true);
                users.put(user.username(), user);
            }
        }
        Map<String, Acl> acls = new TreeMap<>();
        Optional<JsonNode> a = store.aclsFile.load();
        if (a.isPresent()) {
            for (JsonNode n : a.get().path("acls")) {
                Acl acl = aclOf(n);
                acls.put(acl.subject(), acl);
            }
        }
        store.users = Collections.unmodifiableMap(users);
        store.acls = Collections.unmodifiableMap(acls);
        return store;
    }

    Optional<User> user(String username) {
        return Optional.ofNullable(users.get(username));
    }

    Map<String, User> users() {
        return users;
    }

    Optional<Acl> acl(String subject) {
        return Optional.ofNullable(acls.get(subject));
    }

    Map<String, Acl> acls() {
        return acls;
    }

    synchronized void putUser(User user) throws IOException {
        Map<String, User> next = new TreeMap<>(users);
        next.put(user.username(), user);
        persistUsers(next);
        users = Collections.unmodifiableMap(next);
    }

    /** Removes the user and its ACL; false when there was no such user. */
    synchronized boolean deleteUser(String username) throws IOException {
        if (!users.containsKey(username)) {
            return false;
        }
        Map<String, User> next = new TreeMap<>(users);
        next.remove(username);
        persistUsers(next);
        users = Collections.unmodifiableMap(next);
        String subject = subject(username);
        if (acls.containsKey(subject)) {
            Map<String, Acl> nextAcls = new TreeMap<>(acls);
            nextAcls.remove(subject);
            persistAcls(nextAcls);
            acls = Collections.unmodifiableMap(nextAcls);
        }
        return true;
    }

    /**
     * Merges {@code acl} into the subject's (RocketMQ's create and update alike): for each policy type, an entry for a
     * resource already there replaces it, a new one is added.
     */
    synchronized void mergeAcl(Acl acl) throws IOException {
        Acl current = acls.get(acl.subject());
        Map<PolicyType, Map<String, PolicyEntry>> byType = new LinkedHashMap<>();
        if (current != null) {
            for (Policy p : current.policies()) {
                Map<String, PolicyEntry> entries = byType.computeIfAbsent(p.type(), t -> new LinkedHashMap<>());
                p.entries().forEach(e -> entries.put(e.resource().key(), e));
            }
        }
        for (Policy p : acl.policies()) {
            Map<String, PolicyEntry> entries = byType.computeIfAbsent(p.type(), t -> new LinkedHashMap<>());
            p.entries().forEach(e -> entries.put(e.resource().key(), e));
        }
        List<Policy> policies = new ArrayList<>();
        byType.forEach((type, entries) -> policies.add(new Policy(type, new ArrayList<>(entries.values()))));
        putAcl(new Acl(acl.subject(), policies));
    }

    /**
     * Deletes the subject's whole ACL ({@code resource} null) or one resource's entry of one policy type.
     *
     * @return false when there was nothing to delete
     */
    synchronized boolean deleteAcl(String subject, PolicyType type, String resource) throws IOException {
        Acl current = acls.get(subject);
        if (current == null) {
            return false;
        }
        if (resource == null) {
            Map<String, Acl> next = new TreeMap<>(acls);
            next.remove(subject);
            persistAcls(next);
            acls = Collections.unmodifiableMap(next);
            return true;
        }
        String key = AuthResource.parse(resource).key();
        List<Policy> policies = new ArrayList<>();
        boolean removed = false;
        for (Policy p : current.policies()) {
            if (p.type() != type) {
                policies.add(p);
                continue;
            }
            List<PolicyEntry> kept = p.entries().stream().filter(e -> !e.resource().key().equals(key)).toList();
            removed |= kept.size() != p.entries().size();
            if (!kept.isEmpty()) {
                policies.add(new Policy(p.type(), kept));
            }
        }
        if (!removed) {
            return false;
        }
        putAcl(new Acl(subject, policies));
        return true;
    }

    private void putAcl(Acl acl) throws IOException {
        Map<String, Acl> next = new TreeMap<>(acls);
        if (acl.policies().isEmpty()) {
            next.remove(acl.subject());
        } else {
            next.put(acl.subject(), acl);
        }
        persistAcls(next);
        acls = Collections.unmodifiableMap(next);
    }

    static String subject(String username) {
        return "User:" + username;
    }

    private void persistUsers(Map<String, User> all) throws IOException {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ArrayNode list = root.putArray("users");
        all.values().forEach(u -> list.add(userJson(u, true)));
        usersFile.store(root);
    }

    private void persistAcls(Map<String, Acl> all) throws IOException {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ArrayNode list = root.putArray("acls");
        all.values().forEach(a -> list.add(aclJson(a)));
        aclsFile.store(root);
    }

    // ---- RocketMQ's UserInfo and AclInfo JSON (the AUTH_* bodies use the same shapes) ----

    /** {@code {"username":..,"password":..,"userType":"Super","userStatus":"enable"}}; the password only when asked. */
    static ObjectNode userJson(User u, boolean withPassword) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("username", u.username());
        if (withPassword) {
            n.put("password", u.password());
        }
        n.put("userType", u.type().text);
        n.put("userStatus", u.status().text);
        return n;
    }

    /**
     * A user from its JSON; {@code complete} asks for every field (a stored user), else type and status default to
     * Normal and enable (a created one).
     */
    static User userOf(JsonNode n, boolean complete) {
        String username = text(n, "username");
        if (username == null || username.isBlank()) {
            throw new IllegalArgumentException("The username is blank");
        }
        String password = text(n, "password");
        String type = text(n, "userType");
        String status = text(n, "userStatus");
        if (complete && (password == null || type == null || status == null)) {
            throw new IllegalArgumentException("user " + username + " is incomplete");
        }
        return new User(username.trim(), password == null ? "" : password,
            type == null ? UserType.NORMAL : UserType.parse(type),
            status == null ? UserStatus.ENABLE : UserStatus.parse(status));
    }

    static ObjectNode aclJson(Acl a) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("subject", a.subject());
        ArrayNode policies = n.putArray("policies");
        for (Policy p : a.policies()) {
            ObjectNode pn = policies.addObject();
            pn.put("policyType", p.type().text);
            ArrayNode entries = pn.putArray("entries");
            for (PolicyEntry e : p.entries()) {
                ObjectNode en = entries.addObject();
                en.put("resource", e.resource().key());
                ArrayNode actions = en.putArray("actions");
                e.actions().stream().sorted().forEach(x -> actions.add(x.text));
                ArrayNode ips = en.putArray("sourceIps");
                e.sourceIps().forEach(ips::add);
                en.put("decision", e.decision().text);
            }
        }
        return n;
    }

    /**
     * An ACL from RocketMQ's AclInfo JSON, checked with RocketMQ's messages ("The policies is empty.", "The resource
     * is null.", "The actions can not be Any.", "The source ip is invalid.", "The decision is null or illegal.").
     */
    static Acl aclOf(JsonNode n) {
        String subject = text(n, "subject");
        if (subject == null || !subject.startsWith("User:") || subject.length() <= "User:".length()) {
            throw new IllegalArgumentException("The subject is not User:<name>.");
        }
        JsonNode policiesNode = n.get("policies");
        if (policiesNode == null || !policiesNode.isArray() || policiesNode.isEmpty()) {
            throw new IllegalArgumentException("The policies is empty.");
        }
        List<Policy> policies = new ArrayList<>();
        for (JsonNode pn : policiesNode) {
            PolicyType type = PolicyType.parse(text(pn, "policyType"));
            List<PolicyEntry> entries = new ArrayList<>();
            for (JsonNode en : pn.path("entries")) {
                AuthResource resource = AuthResource.parse(text(en, "resource"));
                Set<AuthAction> actions = EnumSet.noneOf(AuthAction.class);
                for (JsonNode an : en.path("actions")) {
                    actions.add(AuthAction.parse(an.asText()));
                }
                if (actions.isEmpty()) {
                    throw new IllegalArgumentException("The actions is empty.");
                }
                List<String> ips = new ArrayList<>();
                for (JsonNode ip : en.path("sourceIps")) {
                    ips.add(ip.asText());
                }
                entries.add(new PolicyEntry(resource, actions, ips, Decision.parse(text(en, "decision"))));
            }
            if (entries.isEmpty()) {
                throw new IllegalArgumentException("The policies is empty.");
            }
            policies.add(new Policy(type, entries));
        }
        return new Acl(subject, policies);
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n == null ? null : n.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }
}
