package io.basalt.broker.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;

import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.remoting.CommandCustomHeader;
import org.apache.rocketmq.remoting.protocol.header.PullMessageRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeaderV2;
import org.apache.rocketmq.remoting.protocol.header.UpdateConsumerOffsetRequestHeader;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;

/**
 * ACL 1.0's decisions on requests signed by the official 5.2.0 client's {@code AclClientRPCHook}: RocketMQ's order
 * and messages, and the holes of 5.2.0 that Basalt closes (admin codes, retry topics, lite pull).
 */
class PlainAccessCheckTest {
    @TempDir
    Path dir;

    private PlainAccessCheck check;

    @BeforeEach
    void load() throws Exception {
        Path file = dir.resolve("conf/plain_acl.yml");
        Files.createDirectories(file.getParent());
        Files.writeString(file, PlainAclFileTest.SAMPLE);
        check = new PlainAccessCheck(PlainAclFiles.load(file, dir.resolve("conf/acl"), System::currentTimeMillis));
    }

    /** What the broker receives from a client signing with {@code accessKey}/{@code secretKey}. */
    private static RemotingCommand signed(String accessKey, String secretKey, int code, CommandCustomHeader header,
                                          byte[] body) {
        org.apache.rocketmq.remoting.protocol.RemotingCommand request =
            org.apache.rocketmq.remoting.protocol.RemotingCommand.createRequestCommand(code, header);
        request.setBody(body);
        if (accessKey != null) {
            new AclClientRPCHook(new SessionCredentials(accessKey, secretKey)).doBeforeRequest("127.0.0.1:10911", request);
        } else {
            request.makeCustomHeaderToNet();
        }
        RemotingCommand received = RemotingCommand.request(code);
        received.setExtFields(request.getExtFields() == null ? new HashMap<>() : new HashMap<>(request.getExtFields()));
        received.setBody(body);
        received.setVersion(request.getVersion());
        return received;
    }

    private static SendMessageRequestHeaderV2 sendV2(String topic) {
        SendMessageRequestHeader h = new SendMessageRequestHeader();
        h.setProducerGroup("pg");
        h.setTopic(topic);
        h.setDefaultTopic("TBW102");
        h.setDefaultTopicQueueNums(4);
        h.setQueueId(0);
        h.setSysFlag(0);
        h.setBornTimestamp(1700000000000L);
        h.setFlag(0);
        h.setProperties("");
        h.setReconsumeTimes(0);
        h.setUnitMode(false);
        h.setBatch(false);
        return SendMessageRequestHeaderV2.createSendMessageRequestHeaderV2(h);
    }

    private static PullMessageRequestHeader pull(String topic, String group) {
        PullMessageRequestHeader h = new PullMessageRequestHeader();
        h.setConsumerGroup(group);
        h.setTopic(topic);
        h.setQueueId(0);
        h.setQueueOffset(0L);
        h.setMaxMsgNums(32);
        h.setSysFlag(0);
        h.setCommitOffset(0L);
        h.setSuspendTimeoutMillis(1000L);
        h.setSubVersion(0L);
        return h;
    }

    private AuthDecision decide(RemotingCommand request, String address) {
        return check.check(request, address);
    }

    private static byte[] body() {
        return "hello".getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aPermittedSendIsLetIn() {
        AuthDecision d = decide(signed("orderProducer", "s3cretOrders", RequestCode.SEND_MESSAGE_V2, sendV2("orders"),
            body()), "10.0.0.5");
        assertEquals(AuthDecision.Outcome.ALLOWED, d.outcome(), d.message());
    }

    @Test
    void refusalsInRocketMqsOrderAndWords() {
        assertDenied(signed(null, null, RequestCode.SEND_MESSAGE_V2, sendV2("orders"), body()),
            AuthDecision.Reason.NO_CREDENTIALS, "No accessKey is configured");
        assertDenied(signed("nobodyAtAll", "whatever99", RequestCode.SEND_MESSAGE_V2, sendV2("orders"), body()),
            AuthDecision.Reason.UNKNOWN_USER, "No acl config for nobodyAtAll");
        assertDenied(signed("orderProducer", "wrongSecret", RequestCode.SEND_MESSAGE_V2, sendV2("orders"), body()),
            AuthDecision.Reason.BAD_SIGNATURE, "Check signature failed for accessKey=orderProducer");
        assertDenied(signed("orderProducer", "s3cretOrders", RequestCode.SEND_MESSAGE_V2, sendV2("payments"), body()),
            AuthDecision.Reason.NO_PERMISSION, "No default permission for topic:payments");
        assertDenied(signed("orderProducer", "s3cretOrders", RequestCode.PULL_MESSAGE, pull("orders", "billing"), null),
            AuthDecision.Reason.NO_PERMISSION, "No permission for topic:orders");
        assertDenied(signed("orderProducer", "s3cretOrders", RequestCode.PULL_MESSAGE, pull("audit", "refunds"), null),
            AuthDecision.Reason.NO_PERMISSION, "No permission for group:refunds");
    }

    @Test
    void aTamperedRequestFailsItsSignature() {
        RemotingCommand request = signed("orderProducer", "s3cretOrders", RequestCode.SEND_MESSAGE_V2, sendV2("orders"),
            body());
        request.putExtField("b", "audit");
        assertDenied(request, AuthDecision.Reason.BAD_SIGNATURE, "Check signature failed");
        RemotingCommand other = signed("orderProducer", "s3cretOrders", RequestCode.SEND_MESSAGE_V2, sendV2("orders"),
            body());
        other.setBody("hellp".getBytes(StandardCharsets.UTF_8));
        assertDenied(other, AuthDecision.Reason.BAD_SIGNATURE, "Check signature failed");
    }

    @Test
    void everyAdminCodeNeedsAnAdminAccount() {
        for (int code : new int[] {RequestCode.UPDATE_AND_CREATE_TOPIC, RequestCode.DELETE_TOPIC_IN_BROKER,
            RequestCode.UPDATE_AND_CREATE_ACL_CONFIG, RequestCode.DELETE_ACL_CONFIG, RequestCode.GET_BROKER_CLUSTER_ACL_INFO,
            RequestCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG, RequestCode.INVOKE_BROKER_TO_RESET_OFFSET,
            AdminCodes.PROMOTE_TO_MASTER}) {
            assertDenied(signed("orderProducer", "s3cretOrders", code, null, null), AuthDecision.Reason.NOT_ADMIN,
                "Need admin permission for request code=" + code + ", but accessKey=orderProducer is not");
        }
        AuthDecision admin = decide(signed("opsAdmin", "opsSecret99", RequestCode.DELETE_ACL_CONFIG, null, null),
            "10.9.9.9");
        assertEquals(AuthDecision.Outcome.ALLOWED, admin.outcome(), admin.message());
    }

    @Test
    void whiteAddressesSkipTheSignatureAndAreToldApart() {
        RemotingCommand unsigned = signed(null, null, RequestCode.DELETE_TOPIC_IN_BROKER, null, null);
        assertEquals(AuthDecision.Outcome.WHITE_ADDRESS, decide(unsigned, "10.10.103.7").outcome(), "global white address");
        RemotingCommand badSecret = signed("opsAdmin", "notTheSecret", RequestCode.DELETE_TOPIC_IN_BROKER, null, null);
        assertEquals(AuthDecision.Outcome.WHITE_ADDRESS, decide(badSecret, "192.168.1.20").outcome(),
            "the account's white address");
        assertEquals(AuthDecision.Outcome.DENIED, decide(badSecret, "192.168.2.20").outcome());
    }

    @Test
    void retryTopicsAreTheirGroupsAndLitePullIsChecked() {
        assertDenied(signed("orderProducer", "s3cretOrders", RequestCode.SEND_MESSAGE_V2, sendV2("%RETRY%refunds"),
            body()), AuthDecision.Reason.NO_PERMISSION, "No permission for group:refunds");
        AuthDecision retry = decide(signed("orderProducer", "s3cretOrders", RequestCode.SEND_MESSAGE_V2,
            sendV2("%RETRY%billing"), body()), "10.0.0.5");
        assertEquals(AuthDecision.Outcome.ALLOWED, retry.outcome(), retry.message());
        assertDenied(signed("orderProducer", "s3cretOrders", RequestCode.LITE_PULL_MESSAGE, pull("payments", "billing"),
            null), AuthDecision.Reason.NO_PERMISSION, "No default permission for topic:payments");
        UpdateConsumerOffsetRequestHeader offset = new UpdateConsumerOffsetRequestHeader();
        offset.setConsumerGroup("billing");
        offset.setTopic("payments");
        offset.setQueueId(0);
        offset.setCommitOffset(5L);
        assertDenied(signed("orderProducer", "s3cretOrders", RequestCode.UPDATE_CONSUMER_OFFSET, offset, null),
            AuthDecision.Reason.NO_PERMISSION, "topic:payments");
    }

    @Test
    void theTraceTopicMayBePublishedToByAnyAccount() {
        AuthDecision d = decide(signed("orderProducer", "s3cretOrders", RequestCode.SEND_MESSAGE_V2,
            sendV2(PlainAccessCheck.TRACE_TOPIC), body()), "10.0.0.5");
        assertEquals(AuthDecision.Outcome.ALLOWED, d.outcome(), d.message());
    }

    private void assertDenied(RemotingCommand request, AuthDecision.Reason reason, String message) {
        AuthDecision d = decide(request, "10.0.0.5");
        assertEquals(AuthDecision.Outcome.DENIED, d.outcome(), d.toString());
        assertEquals(reason, d.reason(), d.message());
        assertTrue(d.message().contains(message), d.message());
    }
}
