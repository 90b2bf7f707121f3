package io.basalt.broker.auth;

import java.util.List;
import java.util.Set;

/**
 * ACL 2.0's data (RocketMQ 5.3's {@code User}, {@code Acl}, {@code Policy}, {@code PolicyEntry}): users with a
 * password, a type and a status, and per user the policies that allow or deny actions on resources. Immutable
 * records; {@link User#toString()} hides the password.
 */
final class AuthModel {
    /** Parsed source IPs: entries are rebuilt rarely, matched on every request. */
    private static final java.util.concurrent.ConcurrentMap<String, AddressPattern> PATTERNS =
        new java.util.concurrent.ConcurrentHashMap<>();

    private AuthModel() {
    }

    enum UserType {
        SUPER("Super"), NORMAL("Normal");

        final String text;

        UserType(String text) {
            this.text = text;
        }

        static UserType parse(String text) {
            for (UserType t : values()) {
                if (t.text.equalsIgnoreCase(text)) {
                    return t;
                }
            }
            throw new IllegalArgumentException("userType '" + text + "' is not Super or Normal");
        }
    }

    enum UserStatus {
        ENABLE("enable"), DISABLE("disable");

        final String text;

        UserStatus(String text) {
            this.text = text;
        }

        static UserStatus parse(String text) {
            for (UserStatus s : values()) {
                if (s.text.equalsIgnoreCase(text)) {
                    return s;
                }
            }
            throw new IllegalArgumentException("userStatus '" + text + "' is not enable or disable");
        }
    }

    record User(String username, String password, UserType type, UserStatus status) {
        @Override
        public String toString() {
            return "User[" + username + ", " + type.text + ", " + status.text + "]";
        }
    }

    enum PolicyType {
        CUSTOM("Custom"), DEFAULT("Default");

        final String text;

        PolicyType(String text) {
            this.text = text;
        }

        static PolicyType parse(String text) {
            if (text == null || text.isBlank()) {
                return CUSTOM;
            }
            for (PolicyType t : values()) {
                if (t.text.equalsIgnoreCase(text)) {
                    return t;
                }
            }
            throw new IllegalArgumentException("policyType '" + text + "' is not Custom or Default");
        }
    }

    enum Decision {
        ALLOW("Allow"), DENY("Deny");

        final String text;

        Decision(String text) {
            this.text = text;
        }

        static Decision parse(String text) {
            for (Decision d : values()) {
                if (d.text.equalsIgnoreCase(text == null ? "" : text)) {
                    return d;
                }
            }
            throw new IllegalArgumentException("The decision is null or illegal.");
        }
    }

    /** One resource's actions, from where (empty: anywhere), and whether they are allowed. */
    record PolicyEntry(AuthResource resource, Set<AuthAction> actions, List<String> sourceIps, Decision decision) {
        PolicyEntry {
            actions = Set.copyOf(actions);
            sourceIps = List.copyOf(sourceIps);
            if (actions.contains(AuthAction.ANY)) {
                throw new IllegalArgumentException("The actions can not be Any.");
            }
            for (String ip : sourceIps) {
                try {
                    AddressPattern.parse(ip);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("The source ip is invalid. " + e.getMessage());
                }
            }
        }

        /** Whether this entry speaks of {@code requested}, one of {@code actions}, from {@code address}. */
        boolean matches(AuthResource requested, Set<AuthAction> wanted, String address) {
            if (!resource.covers(requested)) {
                return false;
            }
            boolean action = actions.contains(AuthAction.ALL) || wanted.contains(AuthAction.ANY) && !actions.isEmpty()
                || wanted.stream().anyMatch(actions::contains);
            if (!action) {
                return false;
            }
            return sourceIps.isEmpty() || sourceIps.stream().anyMatch(ip -> PATTERNS.computeIfAbsent(ip,
                AddressPattern::parse).matches(address));
        }
    }

    record Policy(PolicyType type, List<PolicyEntry> entries) {
        Policy {
            entries = List.copyOf(entries);
        }
    }

    /** A subject's ({@code User:<name>}) policies. */
    record Acl(String subject, List<Policy> policies) {
        Acl {
            policies = List.copyOf(policies);
        }
    }
}
