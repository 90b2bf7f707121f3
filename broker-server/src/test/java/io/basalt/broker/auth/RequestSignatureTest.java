package io.basalt.broker.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.header.PullMessageRequestHeader;
import org.junit.jupiter.api.Test;

/**
 * RocketMQ's request signature: the worked examples of the reference as golden values, and what the official
 * 5.2.0 {@code AclClientRPCHook} puts on a real request checked by {@link RequestSignature#verify}.
 */
class RequestSignatureTest {
    @Test
    void workedExampleWithoutBody() {
        Map<String, String> fields = Map.of("AccessKey", "RocketMQ", "consumerGroup", "GroupA");
        assertEquals("RocketMQGroupA", RequestSignature.signedFields(fields, 0));
        assertEquals("zbRpaKPymy5SD5OMvjBpFiO0n2Y=", RequestSignature.sign("12345678", fields, null));
    }

    @Test
    void workedExampleWithSecurityToken() {
        Map<String, String> fields = Map.of("AccessKey", "RocketMQ", "SecurityToken", "tok", "consumerGroup", "GroupA");
        assertEquals("RocketMQtokGroupA", RequestSignature.signedFields(fields, 0));
        assertEquals("EVuFLxFu5gkz/zd26uSSsIHEU4U=", RequestSignature.sign("12345678", fields, null));
    }

    @Test
    void workedExampleOfASendWithBody() {
        Map<String, String> fields = new LinkedHashMap<>();
        // inserted out of order on purpose: the key order decides, not the wire order
        fields.put("n", "broker-a");
        fields.put("AccessKey", "RocketMQ");
        fields.put("a", "pg");
        fields.put("b", "TopicA");
        fields.put("c", "TBW102");
        fields.put("d", "4");
        fields.put("e", "0");
        fields.put("f", "0");
        fields.put("g", "1700000000000");
        fields.put("h", "0");
        fields.put("i", "WAIT\u0001true\u0002TAGS\u0001TagA\u0002");
        fields.put("j", "0");
        fields.put("k", "false");
        fields.put("m", "false");
        byte[] body = "Hello".getBytes(StandardCharsets.US_ASCII);
        String signature = RequestSignature.sign("12345678", fields, body);
        assertEquals("xgjeoPjfmayTBHdVjx7CTOfKu+0=", signature);

        fields.put("Signature", signature);
        assertTrue(RequestSignature.verify("12345678", fields, body, 453, signature), "the Signature field is not signed");
        assertFalse(RequestSignature.verify("12345679", fields, body, 453, signature), "another secret");
        assertFalse(RequestSignature.verify("12345678", fields, "Hellp".getBytes(StandardCharsets.US_ASCII), 453,
            signature), "another body");
        fields.put("zone", "added after signing");
        assertFalse(RequestSignature.verify("12345678", fields, body, 453, signature), "a field added after signing");
    }

    @Test
    void onlyTheCanonicalBase64Matches() {
        Map<String, String> fields = Map.of("AccessKey", "RocketMQ", "consumerGroup", "GroupA");
        assertTrue(RequestSignature.verify("12345678", fields, null, 453, "zbRpaKPymy5SD5OMvjBpFiO0n2Y="));
        // 'Z' differs from 'Y' only in the padding bits of the last character: the same bytes once decoded
        assertFalse(RequestSignature.verify("12345678", fields, null, 453, "zbRpaKPymy5SD5OMvjBpFiO0n2Z="));
        assertFalse(RequestSignature.verify("12345678", fields, null, 453, "zbRpaKPymy5SD5OMvjBpFiO0n2Y"), "no padding");
    }

    @Test
    void aSignatureThatIsNotBase64OrMissingNeverMatches() {
        Map<String, String> fields = Map.of("AccessKey", "RocketMQ");
        assertFalse(RequestSignature.verify("12345678", fields, null, 453, "%%%not base64%%%"));
        assertFalse(RequestSignature.verify("12345678", fields, null, 453, null));
        assertFalse(RequestSignature.verify("12345678", fields, null, 453, ""));
    }

    @Test
    void oldClientsAddedUniqueKeyQueryAfterSigning() {
        Map<String, String> fields = new HashMap<>(Map.of("AccessKey", "RocketMQ", "topic", "T"));
        String signature = RequestSignature.sign("12345678", fields, null);
        fields.put("_UNIQUE_KEY_QUERY", "true");
        assertTrue(RequestSignature.verify("12345678", fields, null, 399, signature), "version 399 (4.9.2) and older");
        assertFalse(RequestSignature.verify("12345678", fields, null, 400, signature), "4.9.3 and newer sign it");
    }

    @Test
    void whatTheOfficialClientHookSignsVerifies() {
        AclClientRPCHook hook = new AclClientRPCHook(new SessionCredentials("orderProducer", "s3cretOrders"));
        PullMessageRequestHeader header = new PullMessageRequestHeader();
        header.setConsumerGroup("billing");
        header.setTopic("orders");
        header.setQueueId(3);
        header.setQueueOffset(42L);
        header.setMaxMsgNums(32);
        header.setSysFlag(0);
        header.setCommitOffset(0L);
        header.setSuspendTimeoutMillis(15000L);
        header.setSubVersion(0L);
        RemotingCommand request = RemotingCommand.createRequestCommand(11, header);
        request.setBody("a body".getBytes(StandardCharsets.UTF_8));
        hook.doBeforeRequest("127.0.0.1:10911", request);

        Map<String, String> received = new HashMap<>(request.getExtFields());
        assertTrue(RequestSignature.verify("s3cretOrders", received, request.getBody(), request.getVersion(),
            received.get("Signature")), "fields " + received);
        assertFalse(RequestSignature.verify("wrongSecret", received, request.getBody(), request.getVersion(),
            received.get("Signature")));
    }
}
