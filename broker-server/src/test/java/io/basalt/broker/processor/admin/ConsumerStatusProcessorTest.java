package io.basalt.broker.processor.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.basalt.broker.client.ClientManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** INVOKE_BROKER_TO_GET_CONSUMER_STATUS without an online client: an error naming the group, not RocketMQ's NPE. */
class ConsumerStatusProcessorTest {
    private static final RequestContext CONTEXT = new RequestContext(null, new InetSocketAddress("127.0.0.1", 50000),
        new InetSocketAddress("127.0.0.1", 10911), 0);

    private static RemotingCommand ask(String clientAddr) throws Exception {
        RemotingCommand request = RemotingCommand.request(RequestCode.INVOKE_BROKER_TO_GET_CONSUMER_STATUS);
        request.putExtField("topic", "T");
        request.putExtField("group", "never-seen");
        if (clientAddr != null) {
            request.putExtField("clientAddr", clientAddr);
        }
        return new ConsumerStatusProcessor(new ClientManager(120_000, System::currentTimeMillis))
            .processRequest(CONTEXT, request).get();
    }

    @Test
    void aGroupWithoutOnlineClientsIsNamed() throws Exception {
        RemotingCommand all = ask(null);
        assertEquals(ResponseCode.SYSTEM_ERROR, all.code());
        assertEquals("No Any Consumer online in the consumer group: [never-seen]", all.remark());
        RemotingCommand one = ask("10.0.0.5@1234");
        assertEquals(ResponseCode.SYSTEM_ERROR, one.code());
        assertEquals("The Consumer <never-seen> <10.0.0.5@1234> not online", one.remark());
    }
}
