package io.basalt.store.testing;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import io.basalt.store.BrokerMessage;

/** Messages as a producer on 127.0.0.1 sends them to a broker at 127.0.0.1:10911, for tests and benchmarks. */
public final class TestMessages {
    /** The born host of test messages. */
    public static final InetSocketAddress BORN_HOST = new InetSocketAddress("127.0.0.1", 40000);
    /** The store host of test messages. */
    public static final InetSocketAddress STORE_HOST = new InetSocketAddress("127.0.0.1", 10911);

    private TestMessages() {
    }

    /** A message born now, to add properties, flag or tags code to before {@code build()}. */
    public static BrokerMessage.Builder message(String topic, int queueId, byte[] body) {
        return BrokerMessage.builder().topic(topic).queueId(queueId).body(body).bornTimestamp(System.currentTimeMillis())
            .bornHost(BORN_HOST).storeHost(STORE_HOST);
    }

    /** As {@link #message(String, int, byte[])} with a UTF-8 body. */
    public static BrokerMessage.Builder message(String topic, int queueId, String body) {
        return message(topic, queueId, body.getBytes(StandardCharsets.UTF_8));
    }
}
