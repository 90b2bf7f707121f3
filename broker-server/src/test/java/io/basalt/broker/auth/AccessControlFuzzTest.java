package io.basalt.broker.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.broker.config.BrokerConfiguration;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;

/**
 * The auth path under hostile input, seeded so that a failure replays: random, missing, oversized and non-ASCII
 * {@code AccessKey}, {@code Signature} and {@code SecurityToken}; huge ext-field sets; random bodies and codes; and
 * every one-byte change of a validly signed request. The gate never throws and never lets a request through that a
 * known account did not sign as it arrived.
 */
class AccessControlFuzzTest {
    private static final long SEED = 20261206L;
    private static final List<Integer> CODES = List.of(RequestCode.SEND_MESSAGE, RequestCode.SEND_MESSAGE_V2,
        RequestCode.PULL_MESSAGE, RequestCode.HEART_BEAT, RequestCode.UPDATE_AND_CREATE_TOPIC,
        RequestCode.DELETE_ACL_CONFIG, RequestCode.LOCK_BATCH_MQ, RequestCode.QUERY_CONSUMER_OFFSET, 9999, -1);

    @TempDir
    Path dir;

    private AccessControl gate;
    private final RequestContext context = new RequestContext(null, new InetSocketAddress("10.1.2.3", 40000),
        new InetSocketAddress("10.1.2.4", 10911), 0);

    @BeforeEach
    void open() throws Exception {
        Path file = dir.resolve("conf/plain_acl.yml");
        Files.createDirectories(file.getParent());
        Files.writeString(file, PlainAclFileTest.SAMPLE.replace("10.10.103.*", "192.0.2.200"));
        PlainAclFiles files = PlainAclFiles.load(file, dir.resolve("conf/acl"), System::currentTimeMillis);
        gate = AccessControl.open(BrokerConfiguration.of(Map.of("aclEnable", "true", "authenticationEnabled", "true",
                "authorizationEnabled", "true", "initAuthenticationUser",
                "{\"username\":\"orderProducer\",\"password\":\"s3cretOrders\"}")).security(), files, dir.resolve("config"),
            new AuthCounters(), System::currentTimeMillis);
    }

    @Test
    void randomRequestsNeverGetThrough() {
        Random random = new Random(SEED);
        for (int i = 0; i < 20_000; i++) {
            RemotingCommand request = RemotingCommand.request(CODES.get(random.nextInt(CODES.size())));
            HashMap<String, String> fields = new HashMap<>();
            int count = random.nextInt(10) == 0 ? 5_000 : random.nextInt(20);
            for (int f = 0; f < count; f++) {
                fields.put(text(random, 1 + random.nextInt(12)), text(random, random.nextInt(40)));
            }
            maybe(random, fields, RequestSignature.ACCESS_KEY, random.nextBoolean() ? "orderProducer" : text(random,
                random.nextInt(10) == 0 ? 100_000 : random.nextInt(30)));
            maybe(random, fields, RequestSignature.SIGNATURE, text(random, random.nextInt(10) == 0 ? 100_000 : 28));
            maybe(random, fields, RequestSignature.SECURITY_TOKEN, text(random, random.nextInt(50)));
            request.setExtFields(random.nextInt(20) == 0 ? null : fields);
            if (random.nextBoolean()) {
                byte[] body = new byte[random.nextInt(10) == 0 ? 1 << 20 : random.nextInt(300)];
                random.nextBytes(body);
                request.setBody(body);
            }
            request.setVersion(random.nextInt(500));
            RemotingCommand refused = gate.refuse(request, context);
            assertNotNull(refused, "iteration " + i + " got through: " + fields.keySet());
        }
    }

    @Test
    void everyByteChangeOfASignedRequestIsRefused() {
        HashMap<String, String> fields = new HashMap<>(Map.of("b", "orders", "a", "pg", "c", "TBW102", "d", "4",
            "e", "0", "f", "0", "g", "1700000000000", "h", "0", "i", "", "j", "0"));
        byte[] body = "a message".getBytes(StandardCharsets.UTF_8);
        fields.put(RequestSignature.ACCESS_KEY, "orderProducer");
        fields.put(RequestSignature.SIGNATURE, RequestSignature.sign("s3cretOrders", fields, body));
        assertNull(gate.refuse(signed(fields, body), context), "the valid request gets through");
        Random random = new Random(SEED);
        for (String key : fields.keySet()) {
            String value = fields.get(key);
            for (int at = 0; at < value.length(); at++) {
                HashMap<String, String> changed = new HashMap<>(fields);
                char[] chars = value.toCharArray();
                chars[at] = (char) (chars[at] ^ (1 + random.nextInt(30)));
                changed.put(key, new String(chars));
                RemotingCommand refused = gate.refuse(signed(changed, body), context);
                assertNotNull(refused, key + "[" + at + "] changed and let in");
            }
        }
        for (int at = 0; at < body.length; at++) {
            byte[] changed = body.clone();
            changed[at] ^= 0x20;
            RemotingCommand refused = gate.refuse(signed(fields, changed), context);
            assertNotNull(refused, "body[" + at + "] changed and let in");
            assertEquals(ResponseCode.SYSTEM_ERROR, refused.code(), "ACL 1.0 answers first, as RocketMQ 5.3.0-5.3.2");
        }
    }

    private static RemotingCommand signed(HashMap<String, String> fields, byte[] body) {
        RemotingCommand request = RemotingCommand.request(RequestCode.SEND_MESSAGE_V2);
        request.setExtFields(new HashMap<>(fields));
        request.setBody(body);
        request.setVersion(453);
        return request;
    }

    private static void maybe(Random random, Map<String, String> fields, String key, String value) {
        if (random.nextInt(4) != 0) {
            fields.put(key, value);
        }
    }

    private static String text(Random random, int length) {
        StringBuilder s = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            int kind = random.nextInt(10);
            s.append(kind < 7 ? (char) ('!' + random.nextInt(94)) : kind < 9 ? (char) random.nextInt(0x3000)
                : (char) (0xD800 + random.nextInt(0x800)));
        }
        return s.toString();
    }
}
