package io.basalt.broker.auth;

import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import io.basalt.remoting.protocol.RemotingCommand;

/**
 * ACL 1.0's check of one request, in RocketMQ 5.2.0's order ({@code PlainPermissionManager.validate}):
 *
 * <ol>
 * <li>a global white address lets the request in;</li>
 * <li>no {@code AccessKey}: refused; an unknown one: refused;</li>
 * <li>the account's white address lets it in (no signature, no permission: RocketMQ's rule, counted apart so an
 *     operator sees how much traffic skips signatures);</li>
 * <li>the signature must match ({@link RequestSignature}, constant time);</li>
 * <li>an admin account may do anything; an {@linkplain AdminCodes admin code} needs one;</li>
 * <li>every {@linkplain NeededResources needed} topic and group must be granted, by an explicit entry or the
 *     account's default. RocketMQ's message-trace topic ({@code RMQ_SYS_TRACE_TOPIC}) may be published to by any
 *     account, as in RocketMQ 4.9.4+.</li>
 * </ol>
 *
 * The messages are RocketMQ's, so that what operators grep for still matches, followed by what Basalt adds (the
 * request code). Reads an immutable {@link PlainAclFiles.Snapshot}; thread-safe.
 */
final class PlainAccessCheck {
    static final String TRACE_TOPIC = "RMQ_SYS_TRACE_TOPIC";

    private final PlainAclFiles files;

    PlainAccessCheck(PlainAclFiles files) {
        this.files = files;
    }

    AuthDecision check(RemotingCommand request, String remoteAddress) {
        Map<String, String> fields = request.extFields();
        String accessKey = fields == null ? null : fields.get(RequestSignature.ACCESS_KEY);
        return check(accessKey, secret -> RequestSignature.verify(secret, fields, request.body(), request.version(),
            fields.get(RequestSignature.SIGNATURE)), request.code(), () -> NeededResources.of(request), remoteAddress);
    }

    /**
     * The check of a request that carries {@code accessKey} (null when unsigned), whose signature
     * {@code signedWith} tests against a secret key, with request code {@code code} (a gRPC call has none: -1) and
     * the topics and groups {@code needs} reads.
     */
    AuthDecision check(String accessKey, Predicate<String> signedWith, int code, NeededResources.Source needs,
                       String remoteAddress) {
        PlainAclFiles.Snapshot acl = files.snapshot();
        if (acl.globallyWhite(remoteAddress)) {
            return AuthDecision.white("global white address");
        }
        if (accessKey == null || accessKey.isEmpty()) {
            return AuthDecision.deny(AuthDecision.Reason.NO_CREDENTIALS, "No accessKey is configured");
        }
        PlainAccount account = acl.accounts().get(accessKey);
        if (account == null) {
            return AuthDecision.deny(AuthDecision.Reason.UNKNOWN_USER, "No acl config for " + accessKey);
        }
        if (account.whiteRemoteAddress().matches(remoteAddress)) {
            return AuthDecision.white("white address of accessKey " + accessKey);
        }
        if (!signedWith.test(account.secretKey())) {
            return AuthDecision.deny(AuthDecision.Reason.BAD_SIGNATURE, "Check signature failed for accessKey=" + accessKey);
        }
        if (account.admin()) {
            return AuthDecision.allow(accessKey);
        }
        if (AdminCodes.isAdmin(code)) {
            return AuthDecision.deny(AuthDecision.Reason.NOT_ADMIN, "Need admin permission for request code="
                + code + ", but accessKey=" + accessKey + " is not");
        }
        List<NeededResources.Need> needed;
        try {
            needed = needs.needs();
        } catch (NeededResources.Unreadable e) {
            return AuthDecision.deny(AuthDecision.Reason.UNREADABLE, e.getMessage());
        }
        for (NeededResources.Need need : needed) {
            if (!need.group() && need.name().equals(TRACE_TOPIC) && need.permission() == Permission.PUB) {
                continue;
            }
            boolean explicit = need.group() ? account.groupPerms().containsKey(need.name())
                : account.topicPerms().containsKey(need.name());
            byte owned = need.group() ? account.groupPermission(need.name()) : account.topicPermission(need.name());
            if (!Permission.grants(owned, need.permission())) {
                return AuthDecision.deny(AuthDecision.Reason.NO_PERMISSION, (explicit ? "No permission for "
                    : "No default permission for ") + need.describe());
            }
        }
        return AuthDecision.allow(accessKey);
    }
}
