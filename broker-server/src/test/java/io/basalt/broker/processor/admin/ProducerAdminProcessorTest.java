package io.basalt.broker.processor.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.broker.client.ProducerRegistry;
import io.basalt.remoting.processor.RemotingConnection;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.remoting.protocol.LanguageCode;
import org.apache.rocketmq.remoting.protocol.RemotingSerializable;
import org.apache.rocketmq.remoting.protocol.body.ProducerConnection;
import org.apache.rocketmq.remoting.protocol.body.ProducerInfo;
import org.apache.rocketmq.remoting.protocol.body.ProducerTableInfo;
import org.junit.jupiter.api.Test;

/** GET_PRODUCER_CONNECTION_LIST and GET_ALL_PRODUCER_INFO, read back with the official 5.2.0 body classes. */
class ProducerAdminProcessorTest {
    private static final RequestContext CONTEXT = new RequestContext(null, new InetSocketAddress("127.0.0.1", 50000),
        new InetSocketAddress("127.0.0.1", 10911), 0);

    private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);
    private final ProducerRegistry registry = new ProducerRegistry(clock::get);
    private final ProducerAdminProcessor processor = new ProducerAdminProcessor(registry);

    @Test
    void aGroupsConnectionsAreListedAsTheAdminToolReadsThem() throws Exception {
        registry.register("pg", "10.0.0.5@1234#987", new Connection(52344), "JAVA", 453);
        registry.register("pg", "10.0.0.5@1235#988", new Connection(52345), "CPP", 1);
        registry.register("other", "10.0.0.5@1236#989", new Connection(52346), "JAVA", 453);

        RemotingCommand response = call(connectionList("pg"));
        assertEquals(ResponseCode.SUCCESS, response.code());
        ProducerConnection decoded = RemotingSerializable.decode(response.body(), ProducerConnection.class);
        assertEquals(2, decoded.getConnectionSet().size());
        var first = decoded.getConnectionSet().stream().filter(c -> c.getClientId().equals("10.0.0.5@1234#987"))
            .findFirst().orElseThrow();
        assertEquals("127.0.0.1:52344", first.getClientAddr());
        assertEquals(LanguageCode.JAVA, first.getLanguage());
        assertEquals(453, first.getVersion());
        var second = decoded.getConnectionSet().stream().filter(c -> c.getClientId().equals("10.0.0.5@1235#988"))
            .findFirst().orElseThrow();
        assertEquals(LanguageCode.CPP, second.getLanguage());
    }

    @Test
    void aGroupWithoutProducersIsRocketMqsSystemError() throws Exception {
        RemotingCommand response = call(connectionList("nobody"));
        assertEquals(ResponseCode.SYSTEM_ERROR, response.code());
        assertEquals("the producer group[nobody] not exist", response.remark());

        Connection gone = new Connection(52344);
        registry.register("pg", "client-1", gone, "JAVA", 453);
        gone.active = false;
        assertEquals(ResponseCode.SYSTEM_ERROR, call(connectionList("pg")).code(), "a closed producer is not listed");
    }

    @Test
    void withoutTheGroupHeaderTheRequestIsRefused() throws Exception {
        RemotingCommand response = call(RemotingCommand.request(RequestCode.GET_PRODUCER_CONNECTION_LIST));
        assertTrue(response.code() != ResponseCode.SUCCESS);
        assertTrue(response.remark().contains("producerGroup"), response.remark());
    }

    @Test
    void everyGroupsProducersAreListedWithTheirLastHeartbeat() throws Exception {
        registry.register("pg", "10.0.0.5@1234#987", new Connection(52344), "JAVA", 453);
        clock.addAndGet(5_000);
        registry.register("other", "10.0.0.5@1236#989", new Connection(52346), "JAVA", 453);

        RemotingCommand response = call(RemotingCommand.request(RequestCode.GET_ALL_PRODUCER_INFO));
        assertEquals(ResponseCode.SUCCESS, response.code());
        ProducerTableInfo decoded = RemotingSerializable.decode(response.body(), ProducerTableInfo.class);
        assertEquals(2, decoded.getData().size());
        List<ProducerInfo> pg = decoded.getData().get("pg");
        assertEquals(1, pg.size());
        assertEquals("10.0.0.5@1234#987", pg.get(0).getClientId());
        assertEquals("/127.0.0.1:52344", pg.get(0).getRemoteIP(), "RocketMQ prints the socket address");
        assertEquals(LanguageCode.JAVA, pg.get(0).getLanguage());
        assertEquals(453, pg.get(0).getVersion());
        assertEquals(1_700_000_000_000L, pg.get(0).getLastUpdateTimestamp());
        assertEquals(1_700_000_005_000L, decoded.getData().get("other").get(0).getLastUpdateTimestamp());
    }

    @Test
    void theBodiesAreRocketMqsJson() throws Exception {
        registry.register("pg", "10.0.0.5@1234#987", new Connection(52344), "JAVA", 453);
        assertEquals("{\"connectionSet\":[{\"clientAddr\":\"127.0.0.1:52344\",\"clientId\":\"10.0.0.5@1234#987\","
            + "\"language\":\"JAVA\",\"version\":453}]}", text(call(connectionList("pg"))));
        assertEquals("{\"data\":{\"pg\":[{\"clientId\":\"10.0.0.5@1234#987\",\"language\":\"JAVA\","
                + "\"lastUpdateTimestamp\":1700000000000,\"remoteIP\":\"/127.0.0.1:52344\",\"version\":453}]}}",
            text(call(RemotingCommand.request(RequestCode.GET_ALL_PRODUCER_INFO))));
        registry.unregister("pg", "10.0.0.5@1234#987");
        ProducerTableInfo empty = RemotingSerializable.decode(call(RemotingCommand.request(RequestCode.GET_ALL_PRODUCER_INFO))
            .body(), ProducerTableInfo.class);
        assertEquals(Map.of(), empty.getData());
    }

    private static RemotingCommand connectionList(String group) {
        RemotingCommand request = RemotingCommand.request(RequestCode.GET_PRODUCER_CONNECTION_LIST);
        request.putExtField("producerGroup", group);
        return request;
    }

    private RemotingCommand call(RemotingCommand request) throws Exception {
        return processor.processRequest(CONTEXT, request).get();
    }

    private static String text(RemotingCommand response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    /** A connection from 127.0.0.1:{@code port}. */
    private static final class Connection implements RemotingConnection {
        private final InetSocketAddress remote;
        volatile boolean active = true;

        Connection(int port) {
            this.remote = new InetSocketAddress("127.0.0.1", port);
        }

        @Override
        public SocketAddress remoteAddress() {
            return remote;
        }

        @Override
        public boolean isActive() {
            return active;
        }

        @Override
        public CompletableFuture<RemotingCommand> invoke(RemotingCommand request, long timeoutMs) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> invokeOneway(RemotingCommand request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
            active = false;
        }
    }
}
