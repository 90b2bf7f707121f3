package io.basalt.broker.auth;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * RocketMQ's request signature, the same in ACL 1.0 and 2.0 ({@code AclClientRPCHook} on the client): HMAC-SHA1,
 * keyed with the account's secret key (UTF-8), over the <em>values</em> of every ext field but {@code Signature},
 * in the order of their keys ({@link String#compareTo}, UTF-16 code units), concatenated without separators and
 * encoded as UTF-8, followed by the raw body; Base64 with padding.
 *
 * <p>The broker rebuilds the content from the fields as received, so a field a client added after signing fails
 * the check; the one exception is RocketMQ's: {@code _UNIQUE_KEY_QUERY}, which clients older than 4.9.3 (request
 * version ≤ 399) added after signing (apache/rocketmq#1216), is left out for them. Comparison is in constant time.
 * Stateless and thread-safe.
 */
public final class RequestSignature {
    /** The ext field carrying the signature. */
    public static final String SIGNATURE = "Signature";
    /** The ext field carrying the account name. */
    public static final String ACCESS_KEY = "AccessKey";
    /** The ext field carrying a session token: signed, never checked (RocketMQ's ACL 1.0 and 2.0 alike). */
    public static final String SECURITY_TOKEN = "SecurityToken";
    /** Added after signing by clients of request version ≤ {@link #LATE_UNIQUE_KEY_MAX_VERSION}. */
    static final String UNIQUE_KEY_QUERY = "_UNIQUE_KEY_QUERY";
    /** RocketMQ's {@code MQVersion.Version.V4_9_3}: older clients added {@link #UNIQUE_KEY_QUERY} after signing. */
    static final int LATE_UNIQUE_KEY_MAX_VERSION = 399;

    private static final String ALGORITHM = "HmacSHA1";

    private RequestSignature() {
    }

    /** The signature a client with {@code secretKey} puts on a request with {@code fields} and {@code body}. */
    public static String sign(String secretKey, Map<String, String> fields, byte[] body) {
        return Base64.getEncoder().encodeToString(hmac(secretKey, fields, body, Integer.MAX_VALUE));
    }

    /**
     * Whether {@code signature} is the one {@code secretKey} gives the request as received (its ext
     * {@code fields}, {@code body} and protocol {@code version}), in RocketMQ's canonical Base64, compared in constant
     * time.
     */
    public static boolean verify(String secretKey, Map<String, String> fields, byte[] body, int version, String signature) {
        if (signature == null) {
            return false;
        }
        // the canonical Base64 text is compared, as RocketMQ compares it: decoding first would take encodings that
        // differ in the padding bits of the last character (a changed request the signature still "matched")
        String expected = Base64.getEncoder().encodeToString(hmac(secretKey, fields, body, version));
        return MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII),
            signature.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The signed text: the values of {@code fields} but {@code Signature} (and, for {@code version} ≤ 399,
     * {@code _UNIQUE_KEY_QUERY}) in key order, concatenated; the body follows it.
     */
    static String signedFields(Map<String, String> fields, int version) {
        StringBuilder values = new StringBuilder();
        Map<String, String> sorted = fields instanceof TreeMap<String, String> t && t.comparator() == null
            ? t : new TreeMap<>(fields);
        for (Map.Entry<String, String> e : sorted.entrySet()) {
            String key = e.getKey();
            if (SIGNATURE.equals(key) || e.getValue() == null
                || version <= LATE_UNIQUE_KEY_MAX_VERSION && UNIQUE_KEY_QUERY.equals(key)) {
                continue;
            }
            values.append(e.getValue());
        }
        return values.toString();
    }

    private static byte[] hmac(String secretKey, Map<String, String> fields, byte[] body, int version) {
        Mac mac = MACS.get();
        try {
            mac.init(new SecretKeySpec(secretKey.getBytes(StandardCharsets.UTF_8), ALGORITHM));
        } catch (InvalidKeyException e) {
            // an empty key: the account rules refuse one before a request is ever checked with it
            throw new IllegalArgumentException("an empty secret key cannot sign", e);
        }
        mac.update(signedFields(fields == null ? Map.of() : fields, version).getBytes(StandardCharsets.UTF_8));
        if (body != null) {
            mac.update(body);
        }
        return mac.doFinal();
    }

    /** One HmacSHA1 instance per thread: looking the algorithm up costs more than the MAC of a small request. */
    private static final ThreadLocal<Mac> MACS = ThreadLocal.withInitial(() -> {
        try {
            return Mac.getInstance(ALGORITHM);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("HmacSHA1 is missing from this Java runtime", e);
        }
    });
}
