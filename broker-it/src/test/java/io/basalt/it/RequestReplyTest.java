package io.basalt.it;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.RequestCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.utils.MessageUtil;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.protocol.admin.TopicOffset;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code DefaultMQProducer.request()} 5.2.0 against Basalt: a replier (a push consumer that answers with
 * {@code MessageUtil.createReplyMessage} and a producer) answers sync and async requests; a reply to a
 * requester that is gone gets RocketMQ's SYSTEM_ERROR and harms nobody; storeReplyMessageEnable decides
 * whether the reply is also stored in the cluster's reply topic.
 */
class RequestReplyTest {
    private static final String REPLY_TOPIC = "DefaultCluster_REPLY_TOPIC";

    @TempDir
    Path dir;
    BrokerProcess broker;
    DefaultMQAdminExt admin;
    final List<Runnable> cleanups = new ArrayList<>();
    /** What the replier's sends returned (or threw), one per request it answered. */
    final BlockingQueue<Object> replySends = new LinkedBlockingQueue<>();
    /** The requests the replier received, before it answers them. */
    final BlockingQueue<MessageExt> requestsSeen = new LinkedBlockingQueue<>();

    @AfterEach
    void stop() throws Exception {
        for (int i = cleanups.size() - 1; i >= 0; i--) {
            cleanups.get(i).run();
        }
        if (broker != null) {
            broker.close();
        }
    }

    private void startBroker(Map<String, String> extra) throws Exception {
        broker = BrokerProcess.create(dir, extra);
        broker.start();
        admin = new DefaultMQAdminExt(10_000);
        admin.setNamesrvAddr(broker.address());
        admin.setInstanceName(Clients.instanceName());
        admin.start();
        cleanups.add(admin::shutdown);
    }

    private DefaultMQProducer producer(String group) throws Exception {
        DefaultMQProducer p = Clients.producer(broker, group);
        cleanups.add(p::shutdown);
        return p;
    }

    /**
     * A replier for {@code topic}: answers each request with "re:" + its body, once {@code go} is open, and
     * records what its send of the reply returned.
     */
    private void startReplier(String topic, CountDownLatch go) throws Exception {
        DefaultMQProducer replyProducer = producer("pg-replier");
        DefaultMQPushConsumer c = new DefaultMQPushConsumer("cg-replier-" + topic);
        c.setNamesrvAddr(broker.address());
        c.setInstanceName(Clients.instanceName());
        c.setPollNameServerInterval(1000);
        c.setHeartbeatBrokerInterval(1000);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, "*");
        c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            for (MessageExt request : msgs) {
                requestsSeen.add(request);
                try {
                    go.await(30, TimeUnit.SECONDS);
                    byte[] body = ("re:" + new String(request.getBody(), StandardCharsets.UTF_8))
                        .getBytes(StandardCharsets.UTF_8);
                    replySends.add(replyProducer.send(MessageUtil.createReplyMessage(request, body)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return ConsumeConcurrentlyStatus.RECONSUME_LATER;
                } catch (Exception e) {
                    replySends.add(e);
                }
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        c.start();
        cleanups.add(c::shutdown);
    }

    private void startReplier(String topic) throws Exception {
        startReplier(topic, new CountDownLatch(0));
    }

    private static Message request(String topic, String body) {
        return new Message(topic, body.getBytes(StandardCharsets.UTF_8));
    }

    private SendResult nextReplySend() throws InterruptedException {
        Object result = replySends.poll(30, TimeUnit.SECONDS);
        if (result instanceof Exception e) {
            throw new AssertionError("the replier's send failed", e);
        }
        return assertInstanceOf(SendResult.class, result, "the replier answered no request within 30 s");
    }

    private long messagesIn(String topic) throws Exception {
        return admin.examineTopicStats(topic).getOffsetTable().values().stream()
            .mapToLong(TopicOffset::getMaxOffset).sum();
    }

    @Test
    void aRequestGetsTheRepliersAnswer() throws Exception {
        startBroker(Map.of());
        startReplier("RequestSync");
        DefaultMQProducer requester = producer("pg-requester");

        Message request = request("RequestSync", "hello");
        Message reply = requester.request(request, 20_000);

        assertEquals("re:hello", new String(reply.getBody(), StandardCharsets.UTF_8));
        assertEquals(request.getProperty("CORRELATION_ID"), reply.getProperty("CORRELATION_ID"));
        assertEquals("reply", reply.getProperty("MSG_TYPE"));
        assertEquals(REPLY_TOPIC, reply.getTopic());
        assertEquals(SendStatus.SEND_OK, nextReplySend().getSendStatus());
    }

    @Test
    void anAsyncRequestsCallbackGetsTheAnswer() throws Exception {
        startBroker(Map.of());
        startReplier("RequestAsync");
        DefaultMQProducer requester = producer("pg-requester");

        CompletableFuture<Message> answered = new CompletableFuture<>();
        requester.request(request("RequestAsync", "async hello"), new RequestCallback() {
            @Override
            public void onSuccess(Message message) {
                // the 5.2.0 client also calls this once the request is sent, with no reply yet (null)
                if (message != null) {
                    answered.complete(message);
                }
            }

            @Override
            public void onException(Throwable e) {
                answered.completeExceptionally(e);
            }
        }, 20_000);

        assertEquals("re:async hello", new String(answered.get(30, TimeUnit.SECONDS).getBody(), StandardCharsets.UTF_8));
    }

    @Test
    void aReplyToARequesterThatIsGoneGetsSystemErrorAndHarmsNobody() throws Exception {
        startBroker(Map.of());
        CountDownLatch requesterGone = new CountDownLatch(1);
        startReplier("RequestGone", requesterGone);
        DefaultMQProducer leaving = Clients.producer(broker, "pg-leaving");
        cleanups.add(leaving::shutdown);   // a no-op once it has shut down below
        String leavingClientId = leaving.getDefaultMQProducerImpl().getMqClientFactory().getClientId();
        leaving.request(request("RequestGone", "anyone there?"), new RequestCallback() {
            @Override
            public void onSuccess(Message message) {
            }

            @Override
            public void onException(Throwable e) {
            }
        }, 20_000);
        MessageExt seen = requestsSeen.poll(30, TimeUnit.SECONDS);
        assertNotNull(seen, "the replier got the request within 30 s");
        assertEquals("anyone there?", new String(seen.getBody(), StandardCharsets.UTF_8));
        leaving.shutdown();   // unregisters from the broker and closes its connection
        requesterGone.countDown();

        // SYSTEM_ERROR is one of the codes the producer retries: after its three attempts it gives up
        MQClientException gaveUp = assertInstanceOf(MQClientException.class, replySends.poll(30, TimeUnit.SECONDS),
            "the reply to a requester that is gone is refused");
        assertEquals(1, gaveUp.getResponseCode(), "RocketMQ's SYSTEM_ERROR");
        MQBrokerException refused = assertInstanceOf(MQBrokerException.class, gaveUp.getCause());
        assertEquals(1, refused.getResponseCode());
        assertEquals("push reply message fail, channel of <" + leavingClientId + "> not found.",
            refused.getErrorMessage());

        DefaultMQProducer requester = producer("pg-requester");
        Message reply = requester.request(request("RequestGone", "still there?"), 20_000);
        assertEquals("re:still there?", new String(reply.getBody(), StandardCharsets.UTF_8));
        assertTrue(broker.isAlive());
    }

    @Test
    void aReplyIsAlsoStoredInTheReplyTopicByDefault() throws Exception {
        startBroker(Map.of());
        startReplier("RequestStored");
        DefaultMQProducer requester = producer("pg-requester");

        requester.request(request("RequestStored", "keep it"), 20_000);

        SendResult replySent = nextReplySend();
        MessageExt stored = admin.viewMessage(REPLY_TOPIC, replySent.getOffsetMsgId());
        assertEquals("re:keep it", new String(stored.getBody(), StandardCharsets.UTF_8));
        assertEquals(REPLY_TOPIC, stored.getTopic());
        await().atMost(ofSeconds(10)).until(() -> messagesIn(REPLY_TOPIC) == 1);
    }

    @Test
    void withStoreReplyMessageEnableOffTheReplyIsOnlyPushed() throws Exception {
        startBroker(Map.of("storeReplyMessageEnable", "false"));
        startReplier("RequestNotStored");
        DefaultMQProducer requester = producer("pg-requester");

        Message reply = requester.request(request("RequestNotStored", "forget it"), 20_000);

        assertEquals("re:forget it", new String(reply.getBody(), StandardCharsets.UTF_8));
        SendResult replySent = nextReplySend();
        assertEquals(SendStatus.SEND_OK, replySent.getSendStatus());
        assertEquals("0", replySent.getOffsetMsgId(), "RocketMQ's placeholder for a reply not stored");
        // the request was stored (and its consume-queue entry is visible), the reply not
        await().atMost(ofSeconds(10)).until(() -> messagesIn("RequestNotStored") == 1);
        assertEquals(0, messagesIn(REPLY_TOPIC));
        assertNotEquals(0, messagesIn("RequestNotStored"));
    }
}
