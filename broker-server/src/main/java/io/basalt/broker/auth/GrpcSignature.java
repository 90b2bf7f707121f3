package io.basalt.broker.auth;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The signature of the RocketMQ 5.x SDKs' gRPC calls: the {@code authorization} header
 * {@code MQv2-HMAC-SHA1 Credential=<accessKey>,SignedHeaders=x-mq-date-time,Signature=<hex>} (the Java SDK joins the
 * parts with a bare comma; spaces around them are taken too), where the signature is
 * HMAC-SHA1, keyed with the secret (UTF-8), over the value of the {@code x-mq-date-time} header as sent, in hex (the
 * SDKs write upper case; RocketMQ decodes the hex, so either case is taken). The date is not checked for freshness,
 * as RocketMQ does not check it. Stateless and thread-safe.
 */
public final class GrpcSignature {
    /** The only algorithm the SDKs use. */
    public static final String ALGORITHM = "MQv2-HMAC-SHA1";
    /** The only header the SDKs sign. */
    public static final String DATE_TIME = "x-mq-date-time";

    private static final String MAC = "HmacSHA1";

    /** A parsed {@code authorization} header. */
    public record Authorization(String accessKey, String signature) { }

    /** An {@code authorization} header that is not the SDKs' format; the message says what is wrong. */
    public static final class Malformed extends Exception {
        Malformed(String message) {
            super(message);
        }
    }

    private GrpcSignature() {
    }

    /**
     * Reads an {@code authorization} header.
     *
     * @throws Malformed another algorithm, a missing Credential or Signature, or signed headers other than
     *                   {@code x-mq-date-time} (Basalt could not know what was signed)
     */
    public static Authorization parse(String header) throws Malformed {
        String text = header == null ? "" : header.trim();
        if (!text.startsWith(ALGORITHM + " ")) {
            throw new Malformed("the authorization header does not start with " + ALGORITHM);
        }
        String accessKey = null;
        String signedHeaders = null;
        String signature = null;
        for (String part : text.substring(ALGORITHM.length() + 1).split(",")) {
            int eq = part.indexOf('=');
            if (eq < 0) {
                throw new Malformed("the authorization header has a part without '=': " + part.trim());
            }
            String key = part.substring(0, eq).trim();
            String value = part.substring(eq + 1).trim();
            switch (key) {
                // RocketMQ reads the access key up to a '/' (room for a scope the SDKs do not send)
                case "Credential" -> accessKey = value.split("/", 2)[0];
                case "SignedHeaders" -> signedHeaders = value;
                case "Signature" -> signature = value;
                default -> {
                    // other parts carry nothing the check needs
                }
            }
        }
        if (accessKey == null || accessKey.isEmpty()) {
            throw new Malformed("the authorization header has no Credential (access key)");
        }
        if (signature == null || signature.isEmpty()) {
            throw new Malformed("the authorization header of accessKey " + accessKey + " has no Signature");
        }
        if (!DATE_TIME.equalsIgnoreCase(signedHeaders)) {
            throw new Malformed("the authorization header of accessKey " + accessKey + " signs '" + signedHeaders
                + "'; only SignedHeaders=" + DATE_TIME + " is supported");
        }
        return new Authorization(accessKey, signature);
    }

    /** The signature an SDK with {@code secretKey} sends with {@code dateTime} (upper-case hex). */
    public static String sign(String secretKey, String dateTime) {
        return HexFormat.of().formatHex(hmac(secretKey, dateTime)).toUpperCase(Locale.ROOT);
    }

    /** Whether {@code signature} (hex) is {@code secretKey}'s over {@code dateTime}, compared in constant time. */
    public static boolean verify(String secretKey, String dateTime, String signature) {
        if (dateTime == null || signature == null || secretKey == null || secretKey.isEmpty()) {
            return false;
        }
        byte[] given;
        try {
            given = HexFormat.of().parseHex(signature);
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(hmac(secretKey, dateTime), given);
    }

    private static byte[] hmac(String secretKey, String dateTime) {
        Mac mac = MACS.get();
        try {
            mac.init(new SecretKeySpec(secretKey.getBytes(StandardCharsets.UTF_8), MAC));
        } catch (InvalidKeyException e) {
            throw new IllegalArgumentException("an empty secret key cannot sign", e);
        }
        return mac.doFinal(dateTime.getBytes(StandardCharsets.UTF_8));
    }

    /** One HmacSHA1 instance per thread, as for remoting signatures: every gRPC request message is checked. */
    private static final ThreadLocal<Mac> MACS = ThreadLocal.withInitial(() -> {
        try {
            return Mac.getInstance(MAC);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("HmacSHA1 is missing from this Java runtime", e);
        }
    });
}
