package io.basalt.broker.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The {@code authorization} header rocketmq-client-java 5.0.7 sends ({@code org.apache.rocketmq.client.java.rpc
 * .Signature.sign}), computed independently of the broker's code: HmacSHA1 of the {@code x-mq-date-time} value keyed
 * with the secret (UTF-8), upper-case hex, in {@code MQv2-HMAC-SHA1 Credential=...,SignedHeaders=x-mq-date-time,Signature=...}
 * (the SDK joins the parts with a bare comma).
 */
public final class SdkSignatures {
    private SdkSignatures() {
    }

    public static String header(String accessKey, String secret, String dateTime) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA1");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
        StringBuilder hex = new StringBuilder();
        for (byte b : mac.doFinal(dateTime.getBytes(StandardCharsets.UTF_8))) {
            hex.append(String.format("%02X", b));
        }
        return "MQv2-HMAC-SHA1 Credential=" + accessKey + ",SignedHeaders=x-mq-date-time,Signature=" + hex;
    }
}
