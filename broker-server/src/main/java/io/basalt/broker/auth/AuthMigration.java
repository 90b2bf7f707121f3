package io.basalt.broker.auth;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.broker.auth.AuthModel.Decision;
import io.basalt.broker.auth.AuthModel.Policy;
import io.basalt.broker.auth.AuthModel.PolicyEntry;
import io.basalt.broker.auth.AuthModel.PolicyType;

/**
 * RocketMQ 5.3's {@code migrateAuthFromV1Enabled}: each ACL 1.0 account not yet a user becomes one (admin: Super,
 * else Normal) with its permissions as policies: {@code topicPerms}/{@code groupPerms} as Custom entries
 * ({@code PUB}→Pub, {@code SUB}→Sub, {@code PUB|SUB}→both, {@code DENY}→All denied), the default permissions as
 * Default entries on {@code Topic:*} and {@code Group:*}. White addresses are not carried over (RocketMQ's rule: ACL
 * 2.0 has no address that skips the signature).
 */
final class AuthMigration {
    private static final Logger log = LoggerFactory.getLogger(AuthMigration.class);

    private AuthMigration() {
    }

    static void fromV1(PlainAclFiles.Snapshot v1, AuthStore store) throws IOException {
        int migrated = 0;
        for (PlainAccount a : v1.accounts().values()) {
            if (store.user(a.accessKey()).isPresent()) {
                continue;
            }
            store.putUser(new AuthModel.User(a.accessKey(), a.secretKey(), a.admin() ? AuthModel.UserType.SUPER
                : AuthModel.UserType.NORMAL, AuthModel.UserStatus.ENABLE));
            if (!a.admin()) {
                List<PolicyEntry> custom = new ArrayList<>();
                entries(custom, a.topicPerms(), AuthResource.Type.TOPIC);
                entries(custom, a.groupPerms(), AuthResource.Type.GROUP);
                List<PolicyEntry> defaults = new ArrayList<>();
                defaults.add(entry(new AuthResource(AuthResource.Type.TOPIC, "", AuthResource.Pattern.ANY),
                    a.defaultTopicPerm()));
                defaults.add(entry(new AuthResource(AuthResource.Type.GROUP, "", AuthResource.Pattern.ANY),
                    a.defaultGroupPerm()));
                List<Policy> policies = new ArrayList<>();
                if (!custom.isEmpty()) {
                    policies.add(new Policy(PolicyType.CUSTOM, custom));
                }
                policies.add(new Policy(PolicyType.DEFAULT, defaults));
                store.mergeAcl(new AuthModel.Acl(AuthStore.subject(a.accessKey()), policies));
            }
            migrated++;
        }
        if (migrated > 0) {
            log.info("ACL 2.0: {} ACL 1.0 accounts migrated (their white addresses are not)", migrated);
        }
    }

    private static void entries(List<PolicyEntry> out, Map<String, Byte> perms, AuthResource.Type type) {
        perms.forEach((name, perm) -> out.add(entry(new AuthResource(type, name, AuthResource.Pattern.LITERAL), perm)));
    }

    private static PolicyEntry entry(AuthResource resource, byte perm) {
        if ((perm & Permission.DENY) != 0 || (perm & (Permission.PUB | Permission.SUB)) == 0) {
            return new PolicyEntry(resource, EnumSet.of(AuthAction.ALL), List.of(), Decision.DENY);
        }
        Set<AuthAction> actions = EnumSet.noneOf(AuthAction.class);
        if ((perm & Permission.PUB) != 0) {
            actions.add(AuthAction.PUB);
        }
        if ((perm & Permission.SUB) != 0) {
            actions.add(AuthAction.SUB);
        }
        return new PolicyEntry(resource, actions, List.of(), Decision.ALLOW);
    }
}
