package io.basalt.it.pop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;
import org.apache.rocketmq.client.consumer.AckStatus;
import org.apache.rocketmq.client.consumer.PopResult;
import org.apache.rocketmq.client.consumer.PopStatus;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.header.PopMessageResponseHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PEEK_MESSAGE (200052) against a real broker with the official 5.2.0 protocol classes: messages from the group's
 * POP offset, given again on every peek (no invisibility), still there for a POP; after the POP's ACK moved the
 * offset, PULL_NOT_FOUND.
 */
class PeekMessageTest {
    static final String GROUP = "cg-peek";

    @TempDir
    Path dir;

    @Test
    void peekShowsWhatAPopWouldGetWithoutTakingIt() throws Exception {
        String topic = "PeekTopic";
        try (BrokerProcess broker = BrokerProcess.create(dir, Map.of())) {
            broker.start();
            DefaultMQProducer producer = Clients.producer(broker, "pg-peek");
            try {
                for (int i = 0; i < 2; i++) {
                    assertEquals(SendStatus.SEND_OK, producer.send(new Message(topic,
                        ("p" + i).getBytes(StandardCharsets.UTF_8)), (mqs, msg, arg) -> mqs.get(0), null).getSendStatus());
                }
                PopClient client = new PopClient(producer.getDefaultMQProducerImpl().getMqClientFactory()
                    .getMQClientAPIImpl(), broker.brokerName(), broker.address(), GROUP);
                client.awaitQueued(topic, 0, 2);
                for (int round = 0; round < 2; round++) {
                    RemotingCommand peeked = client.peek(topic, 0, 32);
                    assertEquals(ResponseCode.SUCCESS, peeked.getCode(), peeked.getRemark());
                    assertEquals(List.of("p0", "p1"), bodies(peeked), "peek " + round);
                    assertEquals(2, header(peeked).getRestNum());
                }
                PopResult popped = client.pop(topic, 0, 32, 60_000, 1000);
                assertEquals(PopStatus.FOUND, popped.getPopStatus());
                assertEquals(2, popped.getMsgFoundList().size(), "peeking took nothing");
                for (MessageExt m : popped.getMsgFoundList()) {
                    assertEquals(AckStatus.OK, client.ack(m).getStatus());
                }
                assertEquals(ResponseCode.PULL_NOT_FOUND, client.peek(topic, 0, 32).getCode());
                assertEquals(ResponseCode.TOPIC_NOT_EXIST, client.peek("NoSuchTopic", 0, 32).getCode());
            } finally {
                producer.shutdown();
            }
        }
    }

    private static PopMessageResponseHeader header(RemotingCommand response) throws Exception {
        return (PopMessageResponseHeader) response.decodeCommandCustomHeader(PopMessageResponseHeader.class);
    }

    private static List<String> bodies(RemotingCommand response) {
        return MessageDecoder.decodes(ByteBuffer.wrap(response.getBody())).stream()
            .map(m -> new String(m.getBody(), StandardCharsets.UTF_8)).toList();
    }
}
