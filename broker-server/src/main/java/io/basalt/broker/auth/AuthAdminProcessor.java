package io.basalt.broker.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.basalt.broker.JsonConfigFile;
import io.basalt.broker.auth.AuthModel.Acl;
import io.basalt.broker.auth.AuthModel.PolicyType;
import io.basalt.broker.auth.AuthModel.User;
import io.basalt.broker.auth.AuthModel.UserStatus;
import io.basalt.broker.auth.AuthModel.UserType;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;

/**
 * ACL 2.0's admin codes as RocketMQ 5.3's mqadmin and dashboard send them (header fields, JSON bodies of RocketMQ's
 * {@code UserInfo} and {@code AclInfo}), with RocketMQ's answers: AUTH_CREATE_USER (3001) … AUTH_LIST_ACL (3010).
 * Only Super users get here ({@link AdminCodes}). Unlike RocketMQ, no answer carries a password: AUTH_GET_USER and
 * AUTH_LIST_USER leave it out. With ACL 2.0 off every code is refused, saying so.
 */
public final class AuthAdminProcessor implements RequestProcessor {
    private static final Logger log = LoggerFactory.getLogger(AuthAdminProcessor.class);
    public static final int AUTH_CREATE_USER = 3001;
    public static final int AUTH_UPDATE_USER = 3002;
    public static final int AUTH_DELETE_USER = 3003;
    public static final int AUTH_GET_USER = 3004;
    public static final int AUTH_LIST_USER = 3005;
    public static final int AUTH_CREATE_ACL = 3006;
    public static final int AUTH_UPDATE_ACL = 3007;
    public static final int AUTH_DELETE_ACL = 3008;
    public static final int AUTH_GET_ACL = 3009;
    public static final int AUTH_LIST_ACL = 3010;
    /** RocketMQ answers a blank username with code 29. */
    static final int INVALID_PARAMETER = 29;

    private final AuthStore store;

    /** @param store ACL 2.0's users and ACLs, null when ACL 2.0 is off */
    AuthAdminProcessor(AuthStore store) {
        this.store = store;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        if (store == null) {
            return done(ResponseCode.SYSTEM_ERROR, "ACL 2.0 is not enabled on this broker (authenticationEnabled and"
                + " authorizationEnabled are false)");
        }
        Map<String, String> f = request.extFields() == null ? Map.of() : request.extFields();
        try {
            return switch (request.code()) {
                case AUTH_CREATE_USER -> createUser(f, request);
                case AUTH_UPDATE_USER -> updateUser(f, request);
                case AUTH_DELETE_USER -> {
                    String username = f.getOrDefault("username", "");
                    if (store.deleteUser(username)) {
                        log.info("ACL 2.0: user {} and its ACL deleted", username);
                    }
                    yield done(ResponseCode.SUCCESS, null);
                }
                case AUTH_GET_USER -> {
                    RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
                    store.user(f.getOrDefault("username", "")).ifPresent(u -> response.setBody(json(AuthStore.userJson(u,
                        false))));
                    yield CompletableFuture.completedFuture(response);
                }
                case AUTH_LIST_USER -> {
                    String filter = f.getOrDefault("filter", "");
                    ArrayNode list = JsonNodeFactory.instance.arrayNode();
                    store.users().values().stream().filter(u -> filter.isEmpty() || u.username().contains(filter))
                        .forEach(u -> list.add(AuthStore.userJson(u, false)));
                    yield withBody(list);
                }
                case AUTH_CREATE_ACL, AUTH_UPDATE_ACL -> mergeAcl(f, request);
                case AUTH_DELETE_ACL -> {
                    String subject = f.getOrDefault("subject", "");
                    String resource = f.get("resource");
                    if (!store.deleteAcl(subject, PolicyType.parse(f.get("policyType")),
                        resource == null || resource.isBlank() ? null : resource)) {
                        yield done(ResponseCode.NO_PERMISSION, "The acl is not exist.");
                    }
                    log.info("ACL 2.0: ACL of {} {} deleted", subject, resource == null ? "" : resource);
                    yield done(ResponseCode.SUCCESS, null);
                }
                case AUTH_GET_ACL -> {
                    RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
                    store.acl(f.getOrDefault("subject", "")).ifPresent(a -> response.setBody(json(AuthStore.aclJson(a))));
                    yield CompletableFuture.completedFuture(response);
                }
                case AUTH_LIST_ACL -> {
                    String subjectFilter = f.getOrDefault("subjectFilter", "");
                    String resourceFilter = f.getOrDefault("resourceFilter", "");
                    ArrayNode list = JsonNodeFactory.instance.arrayNode();
                    store.acls().values().stream()
                        .filter(a -> subjectFilter.isEmpty() || a.subject().contains(subjectFilter))
                        .filter(a -> resourceFilter.isEmpty() || a.policies().stream().flatMap(p -> p.entries().stream())
                            .anyMatch(e -> e.resource().key().contains(resourceFilter)))
                        .forEach(a -> list.add(AuthStore.aclJson(a)));
                    yield withBody(list);
                }
                default -> done(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, "not an ACL 2.0 code: " + request.code());
            };
        } catch (IllegalArgumentException e) {
            return done(ResponseCode.NO_PERMISSION, e.getMessage());
        } catch (IOException e) {
            log.error("ACL 2.0: writing users or ACLs failed: {}", e.toString());
            return done(ResponseCode.SYSTEM_ERROR, "An system error occurred, please try again later.");
        }
    }

    private CompletableFuture<RemotingCommand> createUser(Map<String, String> f, RemotingCommand request)
        throws IOException {
        JsonNode body = body(request);
        if (body.path("username").asText("").isBlank()) {
            return done(INVALID_PARAMETER, "The username is blank");
        }
        User user = AuthStore.userOf(body, false);
        if (store.user(user.username()).isPresent()) {
            return done(ResponseCode.NO_PERMISSION, "The user is existed");
        }
        if (user.password().isBlank()) {
            return done(INVALID_PARAMETER, "The password is blank");
        }
        if (user.type() == UserType.SUPER && !callerIsSuper(f)) {
            return done(ResponseCode.SYSTEM_ERROR, "The super user can only be create by super user");
        }
        store.putUser(user);
        log.info("ACL 2.0: user {} created ({})", user.username(), user.type().text);
        return done(ResponseCode.SUCCESS, null);
    }

    private CompletableFuture<RemotingCommand> updateUser(Map<String, String> f, RemotingCommand request)
        throws IOException {
        JsonNode body = body(request);
        String username = f.getOrDefault("username", body.path("username").asText(""));
        Optional<User> current = store.user(username);
        if (current.isEmpty()) {
            return done(ResponseCode.NO_PERMISSION, "The user is not exist");
        }
        User u = current.get();
        String password = body.path("password").asText("");
        String type = body.path("userType").asText("");
        String status = body.path("userStatus").asText("");
        User next = new User(u.username(), password.isBlank() ? u.password() : password,
            type.isBlank() ? u.type() : UserType.parse(type), status.isBlank() ? u.status() : UserStatus.parse(status));
        if (next.type() == UserType.SUPER && u.type() != UserType.SUPER && !callerIsSuper(f)) {
            return done(ResponseCode.SYSTEM_ERROR, "The super user can only be create by super user");
        }
        store.putUser(next);
        log.info("ACL 2.0: user {} updated ({}, {})", next.username(), next.type().text, next.status().text);
        return done(ResponseCode.SUCCESS, null);
    }

    private CompletableFuture<RemotingCommand> mergeAcl(Map<String, String> f, RemotingCommand request)
        throws IOException {
        Acl acl = AuthStore.aclOf(body(request));
        String subject = f.getOrDefault("subject", acl.subject());
        if (!subject.equals(acl.subject())) {
            return done(ResponseCode.NO_PERMISSION, "The subject of the header and of the body differ.");
        }
        String username = subject.substring("User:".length());
        if (store.user(username).isEmpty()) {
            return done(ResponseCode.NO_PERMISSION, "The subject of " + subject + " is not exist.");
        }
        store.mergeAcl(acl);
        log.info("ACL 2.0: ACL of {} merged", subject);
        return done(ResponseCode.SUCCESS, null);
    }

    private boolean callerIsSuper(Map<String, String> f) {
        String caller = f.get(RequestSignature.ACCESS_KEY);
        return caller != null && store.user(caller).map(u -> u.type() == UserType.SUPER).orElse(false);
    }

    private static JsonNode body(RemotingCommand request) {
        byte[] body = request.body();
        if (body == null || body.length == 0) {
            throw new IllegalArgumentException("The request has no body.");
        }
        try {
            JsonNode n = JsonConfigFile.MAPPER.readTree(body);
            if (n == null || !n.isObject()) {
                throw new IllegalArgumentException("The body is not a JSON object.");
            }
            return n;
        } catch (IOException e) {
            throw new IllegalArgumentException("The body is not JSON: " + e.getMessage());
        }
    }

    private static byte[] json(JsonNode node) {
        return node.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static CompletableFuture<RemotingCommand> withBody(ArrayNode list) {
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        if (!list.isEmpty()) {
            response.setBody(json(list));
        }
        return CompletableFuture.completedFuture(response);
    }

    private static CompletableFuture<RemotingCommand> done(int code, String remark) {
        return CompletableFuture.completedFuture(RemotingCommand.response(code, remark));
    }
}
