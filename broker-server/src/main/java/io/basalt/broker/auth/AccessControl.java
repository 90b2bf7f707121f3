package io.basalt.broker.auth;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.broker.config.SecurityConfig;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestGate;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;

/**
 * The broker's {@link RequestGate}: every request on every remoting port (listenPort and the fast port) passes ACL
 * 1.0 ({@code aclEnable}) and then ACL 2.0 ({@code authenticationEnabled} / {@code authorizationEnabled}) when they
 * are on, as a RocketMQ 5.3.0–5.3.2 broker with both runs them.
 *
 * <p>Refusals are answered as each RocketMQ version answers them, so that clients behave the same: ACL 1.0 with
 * SYSTEM_ERROR (1) and {@code org.apache.rocketmq.acl.common.AclException: <RocketMQ's message>} (without the Java
 * stack frame RocketMQ appends), ACL 2.0 with NO_PERMISSION (16) and its message; Basalt adds the request code. A
 * refused request is never executed; a one-way one gets no answer. Each refusal is counted by reason and logged at
 * WARN with the peer, at most once per reason every {@link #LOG_INTERVAL_MS} (the rest are counted in the next line).
 *
 * <p>NOTIFY_BROKER_ROLE_CHANGED (1008) comes from the RocketMQ Controller, which does not sign: it is let in, and a
 * broker with access control on treats it only as a reason to ask the Controller (the pushed content is not applied).
 * Route reads of a broker that is its own NameServer are let in too, as RocketMQ's NameServer never checks them.
 *
 * <p>The gRPC endpoint of the 5.x SDKs checks its calls here too ({@link #refuseCall}): the same accounts, users,
 * policies and white addresses, with the SDKs' signature ({@link GrpcSignature}) in place of the remoting one.
 * Thread-safe.
 */
public final class AccessControl implements RequestGate {
    private static final Logger log = LoggerFactory.getLogger(AccessControl.class);
    static final long LOG_INTERVAL_MS = 10_000;
    static final String V1_EXCEPTION = "org.apache.rocketmq.acl.common.AclException: ";
    /**
     * Requests let in unchecked: the Controller's role push (unsigned; carries nothing the broker applies as it is), and
     * the route reads a broker answers as its own NameServer, which RocketMQ's NameServer answers to anyone. A client
     * with a wrong secret thus gets its route and then RocketMQ's refusal of its send, not "No route info".
     */
    private static final Set<Integer> UNSIGNED = Set.of(RequestCode.NOTIFY_BROKER_ROLE_CHANGED,
        RequestCode.GET_ROUTEINFO_BY_TOPIC, RequestCode.GET_BROKER_CLUSTER_INFO,
        RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER, RequestCode.GET_TOPICS_BY_CLUSTER);

    /** The request code of a gRPC call: none, so no admin code and no entry of ACL 2.0's code white lists. */
    private static final int NO_CODE = -1;

    private final PlainAccessCheck v1;
    private final UserAccessCheck v2;
    private final AuthStore users;
    private final AuthCounters counters;
    private final LongSupplier clock;
    private final ConcurrentMap<String, AtomicLong> lastLogged = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, AtomicLong> suppressed = new ConcurrentHashMap<>();

    private AccessControl(PlainAclFiles v1, AuthStore users, UserAccessCheck v2, AuthCounters counters,
                          LongSupplier clock) {
        this.v1 = v1 == null ? null : new PlainAccessCheck(v1);
        this.users = users;
        this.v2 = v2;
        this.counters = counters;
        this.clock = clock;
    }

    /**
     * The broker's access control.
     *
     * @param v1        ACL 1.0's files, null when {@code aclEnable=false}
     * @param configDir the store's {@code config} directory, where ACL 2.0 keeps its users and ACLs
     * @throws IOException ACL 2.0's files cannot be read or written
     */
    public static AccessControl open(SecurityConfig security, PlainAclFiles v1, Path configDir, AuthCounters counters,
                                     LongSupplier clock) throws IOException {
        boolean v2On = security.authenticationEnabled() || security.authorizationEnabled();
        if (!v2On) {
            return new AccessControl(v1, null, null, counters, clock);
        }
        AuthStore store = AuthStore.open(configDir);
        bootstrap(store, security, v1);
        UserAccessCheck check = new UserAccessCheck(store, security.authenticationEnabled(),
            security.authorizationEnabled(), security.authenticationWhitelist(), security.authorizationWhitelist());
        log.info("ACL 2.0 on (authentication {}, authorization {}): {} users, {} ACLs in {}",
            security.authenticationEnabled(), security.authorizationEnabled(), store.users().size(), store.acls().size(),
            configDir);
        return new AccessControl(v1, store, check, counters, clock);
    }

    /** RocketMQ's start-up users: the bootstrap user and the broker's own, as Super users; ACL 1.0's accounts. */
    private static void bootstrap(AuthStore store, SecurityConfig security, PlainAclFiles v1) throws IOException {
        for (Optional<SecurityConfig.Credentials> c : List.of(security.initAuthenticationUser(),
            security.innerClientCredentials())) {
            if (c.isPresent() && store.user(c.get().accessKey()).isEmpty()) {
                store.putUser(new AuthModel.User(c.get().accessKey(), c.get().secretKey(), AuthModel.UserType.SUPER,
                    AuthModel.UserStatus.ENABLE));
                log.info("ACL 2.0: Super user {} created from the broker's configuration", c.get().accessKey());
            }
        }
        if (security.migrateAuthFromV1Enabled()) {
            if (v1 == null) {
                throw new AclConfigException("migrateAuthFromV1Enabled=true needs the ACL 1.0 files: set aclEnable=true"
                    + " as well, or remove migrateAuthFromV1Enabled");
            }
            AuthMigration.fromV1(v1.snapshot(), store);
        }
    }

    /** Whether any access control is on. */
    public boolean enabled() {
        return v1 != null || v2 != null;
    }

    /** The processor of ACL 2.0's admin codes (3001–3010); it refuses them when ACL 2.0 is off. */
    public AuthAdminProcessor authAdminProcessor() {
        return new AuthAdminProcessor(users);
    }

    @Override
    public RemotingCommand refuse(RemotingCommand request, RequestContext context) {
        if (UNSIGNED.contains(request.code())) {
            return null;
        }
        String address = address(context.remoteAddress());
        if (v1 != null) {
            AuthDecision decision = v1.check(request, address);
            counters.record("v1", decision);
            if (decision.denied()) {
                logRefusal("v1", decision, "request code " + request.code(), address);
                return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, V1_EXCEPTION + decision.message()
                    + " (request code " + request.code() + ")");
            }
        }
        if (v2 != null) {
            AuthDecision decision = v2.check(request, address);
            counters.record("v2", decision);
            if (decision.denied()) {
                logRefusal("v2", decision, "request code " + request.code(), address);
                return RemotingCommand.response(ResponseCode.NO_PERMISSION, decision.message()
                    + " (request code " + request.code() + ")");
            }
        }
        return null;
    }

    /**
     * A refused gRPC call.
     *
     * @param unauthenticated whether the caller was not authenticated (no, an unknown or a malformed credential, a
     *                        wrong signature) rather than not allowed what it asked
     * @param message         RocketMQ's message, with the RPC and the access key
     */
    public record CallRefusal(boolean unauthenticated, String message) { }

    /**
     * Checks a gRPC call of a 5.x SDK as {@link #refuse} checks a remoting request (ACL 1.0, then ACL 2.0; white
     * addresses as there), counted and logged the same way.
     *
     * @param rpc        the RPC's name, for the message and the log
     * @param accessKey  the access key of the call's {@code authorization} header, null when it has none
     * @param signedWith whether the call's signature is the one of a secret key (or password)
     * @param needs      the topics and groups the call touches
     * @return the refusal, empty when the call may go on
     */
    public Optional<CallRefusal> refuseCall(String rpc, String accessKey, Predicate<String> signedWith,
                                            List<NeededResources.Need> needs, SocketAddress remote) {
        String address = address(remote);
        String who = accessKey == null || accessKey.isEmpty() ? "without an access key" : "of accessKey " + accessKey;
        if (v1 != null) {
            AuthDecision decision = v1.check(accessKey, signedWith, NO_CODE, () -> needs, address);
            counters.record("v1", decision);
            if (decision.denied()) {
                logRefusal("v1", decision, "gRPC " + rpc, address);
                return Optional.of(new CallRefusal(decision.reason().unauthenticated(), "ACL refused " + rpc + " "
                    + who + ": " + decision.message()));
            }
        }
        if (v2 != null) {
            AuthDecision decision = v2.check(accessKey, signedWith, NO_CODE, () -> needs, address);
            counters.record("v2", decision);
            if (decision.denied()) {
                logRefusal("v2", decision, "gRPC " + rpc, address);
                return Optional.of(new CallRefusal(decision.reason().unauthenticated(), "ACL refused " + rpc + " "
                    + who + ": " + decision.message()));
            }
        }
        return Optional.empty();
    }

    /**
     * Refuses a gRPC call before any account is looked up (a malformed {@code authorization} header, a session token),
     * counted as a refusal of every ACL that is on.
     */
    public CallRefusal refuseUnreadableCredentials(String rpc, SocketAddress remote, String why) {
        AuthDecision decision = AuthDecision.deny(AuthDecision.Reason.BAD_SIGNATURE, why);
        String address = address(remote);
        if (v1 != null) {
            counters.record("v1", decision);
        }
        if (v2 != null) {
            counters.record("v2", decision);
        }
        logRefusal(v1 != null ? "v1" : "v2", decision, "gRPC " + rpc, address);
        return new CallRefusal(true, "ACL refused " + rpc + ": " + why);
    }

    /** The client's IP as text, without port and brackets. */
    static String address(SocketAddress remote) {
        if (remote instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress().getHostAddress();
        }
        String text = String.valueOf(remote);
        int slash = text.lastIndexOf('/');
        int colon = text.lastIndexOf(':');
        String host = text.substring(slash + 1, colon > slash ? colon : text.length());
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    private void logRefusal(String acl, AuthDecision decision, String what, String address) {
        String key = acl + "/" + decision.reason().label();
        long now = clock.getAsLong();
        AtomicLong last = lastLogged.computeIfAbsent(key, k -> new AtomicLong(Long.MIN_VALUE / 2));
        long previous = last.get();
        if (now - previous >= LOG_INTERVAL_MS && last.compareAndSet(previous, now)) {
            long others = suppressed.computeIfAbsent(key, k -> new AtomicLong()).getAndSet(0);
            log.warn("ACL {}: {} from {} refused ({}): {}{}", acl, what, address,
                decision.reason().label(), decision.message(), others > 0 ? " (and " + others + " more refusals for this"
                    + " reason since the last line)" : "");
        } else {
            suppressed.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
        }
    }
}
