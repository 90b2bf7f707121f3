package io.basalt.broker.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Set;

import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.remoting.CommandCustomHeader;
import org.apache.rocketmq.remoting.protocol.header.PullMessageRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeaderV2;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
 * ACL 2.0: authentication of users, and authorization by policies with RocketMQ 5.3's precedence (Custom before
 * Default; the most specific entry decides), checked on requests the official client's hook signs.
 */
class UserAccessCheckTest {
    @TempDir
    Path dir;

    private AuthStore store;
    private UserAccessCheck check;

    @BeforeEach
    void users() throws Exception {
        store = AuthStore.open(dir);
        store.putUser(new User("rootUser", "rootSecret1", UserType.SUPER, UserStatus.ENABLE));
        store.putUser(new User("alice", "aliceSecret", UserType.NORMAL, UserStatus.ENABLE));
        store.putUser(new User("mallory", "mallorySecret", UserType.NORMAL, UserStatus.DISABLE));
        store.mergeAcl(new Acl("User:alice", List.of(
            new Policy(PolicyType.CUSTOM, List.of(
                entry("Topic:orders*", Decision.ALLOW, List.of(), AuthAction.PUB, AuthAction.SUB),
                entry("Topic:orders-secret", Decision.DENY, List.of(), AuthAction.ALL),
                entry("Group:billing", Decision.ALLOW, List.of(), AuthAction.SUB),
                entry("Topic:lan-only", Decision.ALLOW, List.of("10.0.0.0/8"), AuthAction.PUB))),
            new Policy(PolicyType.DEFAULT, List.of(
                entry("Topic:*", Decision.ALLOW, List.of(), AuthAction.SUB))))));
        check = new UserAccessCheck(store, true, true, Set.of(), Set.of());
    }

    private static PolicyEntry entry(String resource, Decision decision, List<String> ips, AuthAction... actions) {
        return new PolicyEntry(AuthResource.parse(resource), EnumSet.of(actions[0], actions), ips, decision);
    }

    private static RemotingCommand signed(String user, String secret, int code, CommandCustomHeader header) {
        org.apache.rocketmq.remoting.protocol.RemotingCommand request =
            org.apache.rocketmq.remoting.protocol.RemotingCommand.createRequestCommand(code, header);
        byte[] body = "x".getBytes(StandardCharsets.UTF_8);
        request.setBody(body);
        if (user != null) {
            new AclClientRPCHook(new SessionCredentials(user, secret)).doBeforeRequest("127.0.0.1:10911", request);
        } else {
            request.makeCustomHeaderToNet();
        }
        RemotingCommand received = RemotingCommand.request(code);
        received.setExtFields(request.getExtFields() == null ? new HashMap<>() : new HashMap<>(request.getExtFields()));
        received.setBody(body);
        received.setVersion(request.getVersion());
        return received;
    }

    private static SendMessageRequestHeaderV2 send(String topic) {
        SendMessageRequestHeader h = new SendMessageRequestHeader();
        h.setProducerGroup("pg");
        h.setTopic(topic);
        h.setDefaultTopic("TBW102");
        h.setDefaultTopicQueueNums(4);
        h.setQueueId(0);
        h.setSysFlag(0);
        h.setBornTimestamp(1L);
        h.setFlag(0);
        h.setProperties("");
        h.setReconsumeTimes(0);
        h.setBatch(false);
        return SendMessageRequestHeaderV2.createSendMessageRequestHeaderV2(h);
    }

    private static PullMessageRequestHeader pull(String topic, String group) {
        PullMessageRequestHeader h = new PullMessageRequestHeader();
        h.setConsumerGroup(group);
        h.setTopic(topic);
        h.setQueueId(0);
        h.setQueueOffset(0L);
        h.setMaxMsgNums(1);
        h.setSysFlag(0);
        h.setCommitOffset(0L);
        h.setSuspendTimeoutMillis(1L);
        h.setSubVersion(0L);
        return h;
    }

    @Test
    void authenticationInRocketMqsWords() {
        denied(signed(null, null, RequestCode.SEND_MESSAGE_V2, send("orders")), "10.1.1.1", "username cannot be null.");
        denied(signed("bob", "bobSecret11", RequestCode.SEND_MESSAGE_V2, send("orders")), "10.1.1.1",
            "User:bob is not found.");
        denied(signed("mallory", "mallorySecret", RequestCode.SEND_MESSAGE_V2, send("orders")), "10.1.1.1",
            "User:mallory is disabled.");
        denied(signed("alice", "wrongSecret", RequestCode.SEND_MESSAGE_V2, send("orders")), "10.1.1.1",
            "check signature failed.");
    }

    @Test
    void policiesDecideWithTheMostSpecificEntry() {
        allowed(signed("alice", "aliceSecret", RequestCode.SEND_MESSAGE_V2, send("orders-eu")), "10.1.1.1");
        denied(signed("alice", "aliceSecret", RequestCode.SEND_MESSAGE_V2, send("orders-secret")), "10.1.1.1",
            "User:alice has no permission to access Topic:orders-secret from 10.1.1.1, the decision is deny.");
        denied(signed("alice", "aliceSecret", RequestCode.SEND_MESSAGE_V2, send("payments")), "10.1.1.1",
            "User:alice has no permission to access Topic:payments from 10.1.1.1, no matched policies.");
        allowed(signed("alice", "aliceSecret", RequestCode.PULL_MESSAGE, pull("payments", "billing")), "10.1.1.1");
        denied(signed("alice", "aliceSecret", RequestCode.PULL_MESSAGE, pull("payments", "refunds")), "10.1.1.1",
            "Group:refunds");
        allowed(signed("alice", "aliceSecret", RequestCode.SEND_MESSAGE_V2, send("lan-only")), "10.20.30.40");
        denied(signed("alice", "aliceSecret", RequestCode.SEND_MESSAGE_V2, send("lan-only")), "192.168.1.1",
            "no matched policies");
    }

    @Test
    void superUsersMayDoAnythingAndOnlyThemAdminCodes() {
        allowed(signed("rootUser", "rootSecret1", RequestCode.DELETE_TOPIC_IN_BROKER, null), "10.1.1.1");
        denied(signed("alice", "aliceSecret", RequestCode.DELETE_TOPIC_IN_BROKER, null), "10.1.1.1",
            "is not a Super user");
        denied(signed("alice", "aliceSecret", AuthAdminProcessor.AUTH_CREATE_USER, null), "10.1.1.1",
            "is not a Super user");
    }

    @Test
    void whitelistedCodesSkipTheirStep() {
        UserAccessCheck lenient = new UserAccessCheck(store, true, true, Set.of(RequestCode.HEART_BEAT),
            Set.of(RequestCode.SEND_MESSAGE_V2));
        assertEquals(AuthDecision.Outcome.ALLOWED, lenient.check(signed("alice", "aliceSecret",
            RequestCode.SEND_MESSAGE_V2, send("payments")), "10.1.1.1").outcome(), "authorization skipped");
        assertEquals(AuthDecision.Outcome.DENIED, lenient.check(signed("alice", "wrongSecret",
            RequestCode.SEND_MESSAGE_V2, send("payments")), "10.1.1.1").outcome(), "authentication not skipped");
    }

    private void allowed(RemotingCommand request, String address) {
        AuthDecision d = check.check(request, address);
        assertEquals(AuthDecision.Outcome.ALLOWED, d.outcome(), d.message());
    }

    private void denied(RemotingCommand request, String address, String message) {
        AuthDecision d = check.check(request, address);
        assertEquals(AuthDecision.Outcome.DENIED, d.outcome(), d.toString());
        assertTrue(d.message().contains(message), d.message());
    }
}
