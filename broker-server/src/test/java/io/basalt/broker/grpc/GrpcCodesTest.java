package io.basalt.broker.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.Status;
import io.basalt.remoting.protocol.ResponseCode;
import java.util.List;
import org.junit.jupiter.api.Test;

class GrpcCodesTest {
    @Test
    void brokerResponseCodesMapAsRocketMqsProxyMapsThem() {
        assertEquals(Code.OK, GrpcCodes.codeOf(ResponseCode.SUCCESS));
        assertEquals(Code.MASTER_PERSISTENCE_TIMEOUT, GrpcCodes.codeOf(ResponseCode.FLUSH_DISK_TIMEOUT));
        assertEquals(Code.SLAVE_PERSISTENCE_TIMEOUT, GrpcCodes.codeOf(ResponseCode.FLUSH_SLAVE_TIMEOUT));
        assertEquals(Code.HA_NOT_AVAILABLE, GrpcCodes.codeOf(ResponseCode.SLAVE_NOT_AVAILABLE));
        assertEquals(Code.TOO_MANY_REQUESTS, GrpcCodes.codeOf(ResponseCode.SYSTEM_BUSY));
        assertEquals(Code.NOT_IMPLEMENTED, GrpcCodes.codeOf(ResponseCode.REQUEST_CODE_NOT_SUPPORTED));
        assertEquals(Code.CONSUMER_GROUP_NOT_FOUND, GrpcCodes.codeOf(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST));
        assertEquals(Code.TOPIC_NOT_FOUND, GrpcCodes.codeOf(ResponseCode.TOPIC_NOT_EXIST));
        assertEquals(Code.FORBIDDEN, GrpcCodes.codeOf(ResponseCode.NO_PERMISSION));
        assertEquals(Code.INTERNAL_SERVER_ERROR, GrpcCodes.codeOf(ResponseCode.MESSAGE_ILLEGAL));
        assertEquals(Code.INTERNAL_SERVER_ERROR, GrpcCodes.codeOf(ResponseCode.SYSTEM_ERROR));
    }

    @Test
    void aRefusalKeepsTheBrokersRemark() {
        Status s = GrpcCodes.fromRemoting(ResponseCode.MESSAGE_ILLEGAL, "the message is illegal");
        assertEquals(Code.INTERNAL_SERVER_ERROR, s.getCode());
        assertEquals("the message is illegal", s.getMessage());
        assertEquals("broker response code 1", GrpcCodes.fromRemoting(1, null).getMessage());
        assertEquals("OK", GrpcCodes.fromRemoting(ResponseCode.SUCCESS, "stored").getMessage());
    }

    @Test
    void theTopStatusIsTheCommonOneOrMultipleResults() {
        Status ok = GrpcCodes.OK;
        Status big = GrpcCodes.status(Code.MESSAGE_BODY_TOO_LARGE, "too large");
        assertEquals(ok, GrpcCodes.combined(List.of(ok, ok)));
        assertEquals(big, GrpcCodes.combined(List.of(big)));
        assertEquals(Code.MULTIPLE_RESULTS, GrpcCodes.combined(List.of(ok, big)).getCode());
    }
}
