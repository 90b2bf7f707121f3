package io.basalt.broker.auth;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

import io.basalt.broker.auth.AuthModel.Acl;
import io.basalt.broker.auth.AuthModel.Decision;
import io.basalt.broker.auth.AuthModel.Policy;
import io.basalt.broker.auth.AuthModel.PolicyEntry;
import io.basalt.broker.auth.AuthModel.PolicyType;
import io.basalt.broker.auth.AuthModel.User;
import io.basalt.broker.auth.AuthModel.UserStatus;
import io.basalt.broker.auth.AuthModel.UserType;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;

/**
 * ACL 2.0's check of one request (RocketMQ 5.3's authentication and authorization pipelines), with RocketMQ's
 * messages:
 *
 * <ul>
 * <li>authentication ({@code authenticationEnabled}): the {@code AccessKey} must name an enabled user and the
 *     signature be the user's ({@link RequestSignature}, the same as ACL 1.0's);</li>
 * <li>authorization ({@code authorizationEnabled}): a Super user may do anything; an
 *     {@linkplain AdminCodes admin code} needs one (RocketMQ 5.3 checks several of them, GET_BROKER_CONFIG and
 *     UPDATE_AND_CREATE_SUBSCRIPTIONGROUP among them, for a signature only); every topic and group the request
 *     touches needs an entry that allows the action, from the client's address: the user's Custom policy first, its
 *     Default policy when no Custom entry matches, the most specific entry deciding (a literal resource before a
 *     prefix before {@code Type:*} before {@code *}, a longer prefix first: RocketMQ's order as fixed in
 *     apache/rocketmq#9540).</li>
 * </ul>
 *
 * Request codes of {@code authenticationWhitelist} / {@code authorizationWhitelist} skip the step. Thread-safe.
 */
final class UserAccessCheck {
    private final AuthStore store;
    private final boolean authentication;
    private final boolean authorization;
    private final Set<Integer> authenticationWhitelist;
    private final Set<Integer> authorizationWhitelist;

    UserAccessCheck(AuthStore store, boolean authentication, boolean authorization, Set<Integer> authenticationWhitelist,
                    Set<Integer> authorizationWhitelist) {
        this.store = store;
        this.authentication = authentication;
        this.authorization = authorization;
        this.authenticationWhitelist = Set.copyOf(authenticationWhitelist);
        this.authorizationWhitelist = Set.copyOf(authorizationWhitelist);
    }

    AuthDecision check(RemotingCommand request, String address) {
        Map<String, String> fields = request.extFields();
        String username = fields == null ? null : fields.get(RequestSignature.ACCESS_KEY);
        return check(username, secret -> RequestSignature.verify(secret, fields, request.body(), request.version(),
            fields.get(RequestSignature.SIGNATURE)), request.code(), () -> NeededResources.of(request), address);
    }

    /**
     * The check of a request signed by {@code username} (null when unsigned), whose signature {@code signedWith}
     * tests against a password, with request code {@code code} (a gRPC call has none: -1, in no white list) and the
     * topics and groups {@code needs} reads.
     */
    AuthDecision check(String username, Predicate<String> signedWith, int code, NeededResources.Source needs,
                       String address) {
        Optional<User> user = username == null || username.isEmpty() ? Optional.empty() : store.user(username);
        if (authentication && !authenticationWhitelist.contains(code)) {
            if (username == null || username.isEmpty()) {
                return AuthDecision.deny(AuthDecision.Reason.NO_CREDENTIALS, "username cannot be null.");
            }
            if (user.isEmpty()) {
                return AuthDecision.deny(AuthDecision.Reason.UNKNOWN_USER, "User:" + username + " is not found.");
            }
            if (user.get().status() == UserStatus.DISABLE) {
                return AuthDecision.deny(AuthDecision.Reason.UNKNOWN_USER, "User:" + username + " is disabled.");
            }
            if (!signedWith.test(user.get().password())) {
                return AuthDecision.deny(AuthDecision.Reason.BAD_SIGNATURE, "check signature failed.");
            }
        }
        if (!authorization || authorizationWhitelist.contains(code)) {
            return AuthDecision.allow(username == null ? "" : username);
        }
        if (user.isEmpty()) {
            return AuthDecision.deny(username == null || username.isEmpty() ? AuthDecision.Reason.NO_CREDENTIALS
                : AuthDecision.Reason.UNKNOWN_USER, username == null || username.isEmpty() ? "username cannot be null."
                : "User:" + username + " is not found.");
        }
        User u = user.get();
        if (u.status() == UserStatus.DISABLE) {
            // RocketMQ misses a disabled user when authentication is off (apache/rocketmq#9763)
            return AuthDecision.deny(AuthDecision.Reason.UNKNOWN_USER, "User:" + u.username() + " is disabled.");
        }
        if (u.type() == UserType.SUPER) {
            return AuthDecision.allow(u.username());
        }
        if (AdminCodes.isAdmin(code)) {
            return AuthDecision.deny(AuthDecision.Reason.NOT_ADMIN, "User:" + u.username() + " is not a Super user;"
                + " request code " + code + " needs one");
        }
        List<NeededResources.Need> needed;
        try {
            needed = needs.needs();
        } catch (NeededResources.Unreadable e) {
            return AuthDecision.deny(AuthDecision.Reason.UNREADABLE, e.getMessage());
        }
        Optional<Acl> acl = store.acl(AuthStore.subject(u.username()));
        for (NeededResources.Need need : needed) {
            AuthResource resource = need.group() ? AuthResource.group(need.name()) : AuthResource.topic(need.name());
            Set<AuthAction> actions = actions(code, need);
            Optional<PolicyEntry> best = acl.flatMap(a -> best(a, PolicyType.CUSTOM, resource, actions, address))
                .or(() -> acl.flatMap(a -> best(a, PolicyType.DEFAULT, resource, actions, address)));
            if (best.isEmpty()) {
                return AuthDecision.deny(AuthDecision.Reason.NO_PERMISSION, "User:" + u.username()
                    + " has no permission to access " + resource.key() + " from " + address + ", no matched policies.");
            }
            if (best.get().decision() == Decision.DENY) {
                return AuthDecision.deny(AuthDecision.Reason.NO_PERMISSION, "User:" + u.username()
                    + " has no permission to access " + resource.key() + " from " + address + ", the decision is deny.");
            }
        }
        return AuthDecision.allow(u.username());
    }

    /** The actions any one of which an entry must allow: RocketMQ 5.3's per code (reads also accept Get). */
    private static Set<AuthAction> actions(int code, NeededResources.Need need) {
        if (need.permission() == Permission.PUB) {
            return EnumSet.of(AuthAction.PUB);
        }
        if (need.permission() == Permission.ANY) {
            // a gRPC route query: publishing or subscribing is enough (RocketMQ's proxy)
            return EnumSet.of(AuthAction.PUB, AuthAction.SUB);
        }
        return switch (code) {
            case RequestCode.QUERY_MESSAGE, RequestCode.QUERY_CONSUMER_OFFSET, RequestCode.GET_CONSUMER_LIST_BY_GROUP ->
                EnumSet.of(AuthAction.SUB, AuthAction.GET);
            case RequestCode.UPDATE_CONSUMER_OFFSET -> EnumSet.of(AuthAction.SUB, AuthAction.UPDATE);
            default -> EnumSet.of(AuthAction.SUB);
        };
    }

    private static Optional<PolicyEntry> best(Acl acl, PolicyType type, AuthResource resource, Set<AuthAction> actions,
                                              String address) {
        PolicyEntry best = null;
        for (Policy p : acl.policies()) {
            if (p.type() != type) {
                continue;
            }
            for (PolicyEntry e : p.entries()) {
                if (e.matches(resource, actions, address)
                    && (best == null || e.resource().compareSpecificity(best.resource()) > 0
                        || e.resource().compareSpecificity(best.resource()) == 0 && e.decision() == Decision.DENY)) {
                    best = e;
                }
            }
        }
        return Optional.ofNullable(best);
    }
}
