package io.basalt.broker.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;

import org.junit.jupiter.api.Test;

/**
 * The 5.x SDKs' gRPC signature, against headers built as rocketmq-client-java 5.0.7 builds them
 * ({@link SdkSignatures}).
 */
class GrpcSignatureTest {
    static final String DATE_TIME = "20261206T190102Z";

    static String sdkHeader(String accessKey, String secret, String dateTime) throws Exception {
        return SdkSignatures.header(accessKey, secret, dateTime);
    }

    @Test
    void theSdksHeaderParsesAndVerifies() throws Exception {
        GrpcSignature.Authorization a = GrpcSignature.parse(sdkHeader("orderProducer", "s3cretOrders", DATE_TIME));
        assertEquals("orderProducer", a.accessKey());
        assertEquals(a.signature(), GrpcSignature.sign("s3cretOrders", DATE_TIME));
        assertTrue(GrpcSignature.verify("s3cretOrders", DATE_TIME, a.signature()));
        assertTrue(GrpcSignature.verify("s3cretOrders", DATE_TIME, a.signature().toLowerCase(Locale.ROOT)),
            "RocketMQ decodes the hex: either case");
    }

    @Test
    void spacesAfterTheCommasAreTaken() throws Exception {
        String sdk = sdkHeader("orderProducer", "s3cretOrders", DATE_TIME);
        GrpcSignature.Authorization a = GrpcSignature.parse(sdk.replace(",", ", "));
        assertEquals("orderProducer", a.accessKey());
        assertTrue(GrpcSignature.verify("s3cretOrders", DATE_TIME, a.signature()));
        assertEquals("orderProducer", GrpcSignature.parse(sdk.replace("Credential=orderProducer",
            "Credential=orderProducer/scope")).accessKey(), "RocketMQ's reading of a scoped credential");
    }

    @Test
    void aWrongSecretOrAnotherDateDoesNotVerify() throws Exception {
        String signature = GrpcSignature.parse(sdkHeader("orderProducer", "s3cretOrders", DATE_TIME)).signature();
        assertFalse(GrpcSignature.verify("wrongSecret", DATE_TIME, signature));
        assertFalse(GrpcSignature.verify("s3cretOrders", "20261206T190103Z", signature));
        assertFalse(GrpcSignature.verify("s3cretOrders", null, signature), "no x-mq-date-time header");
        assertFalse(GrpcSignature.verify("s3cretOrders", DATE_TIME, "not hex"));
        assertFalse(GrpcSignature.verify("s3cretOrders", DATE_TIME, signature.substring(2)), "a shortened signature");
    }

    @Test
    void malformedHeadersAreRefusedSayingWhy() {
        GrpcSignature.Malformed e = assertThrows(GrpcSignature.Malformed.class,
            () -> GrpcSignature.parse("Basic dXNlcjpwYXNz"));
        assertTrue(e.getMessage().contains("MQv2-HMAC-SHA1"), e.getMessage());
        assertThrows(GrpcSignature.Malformed.class,
            () -> GrpcSignature.parse("MQv2-HMAC-SHA1 SignedHeaders=x-mq-date-time, Signature=AB"));
        assertThrows(GrpcSignature.Malformed.class,
            () -> GrpcSignature.parse("MQv2-HMAC-SHA1 Credential=ak, SignedHeaders=x-mq-date-time"));
        e = assertThrows(GrpcSignature.Malformed.class,
            () -> GrpcSignature.parse("MQv2-HMAC-SHA1 Credential=ak, SignedHeaders=x-mq-request-id, Signature=AB"));
        assertTrue(e.getMessage().contains("only SignedHeaders=x-mq-date-time"), e.getMessage());
    }
}
