package io.basalt.it.pop;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.rocketmq.client.consumer.AckCallback;
import org.apache.rocketmq.client.consumer.AckResult;
import org.apache.rocketmq.client.consumer.PopCallback;
import org.apache.rocketmq.client.consumer.PopResult;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.header.AckMessageRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.ChangeInvisibleTimeRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.ExtraInfoUtil;
import org.apache.rocketmq.remoting.protocol.header.PeekMessageRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.PollingInfoRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.PollingInfoResponseHeader;
import org.apache.rocketmq.remoting.protocol.header.PopMessageRequestHeader;

/** The official 5.2.0 client's POP calls ({@code MQClientAPIImpl}), made synchronous for tests. */
final class PopClient {
    static final long TIMEOUT_MS = 30_000;

    private final MQClientAPIImpl api;
    private final String brokerName;
    private final String address;
    private final String group;

    PopClient(MQClientAPIImpl api, String brokerName, String address, String group) {
        this.api = api;
        this.brokerName = brokerName;
        this.address = address;
        this.group = group;
    }

    CompletableFuture<PopResult> popAsync(String topic, int queueId, int max, long invisibleMs, long pollMs) throws Exception {
        return popAsync(topic, queueId, max, invisibleMs, pollMs, false, null);
    }

    /** An order POP ({@code order=true}) of the given attempt. */
    PopResult popOrder(String topic, int max, long invisibleMs, long pollMs, String attemptId) throws Exception {
        return popAsync(topic, -1, max, invisibleMs, pollMs, true, attemptId).get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    CompletableFuture<PopResult> popAsync(String topic, int queueId, int max, long invisibleMs, long pollMs,
                                          boolean order, String attemptId) throws Exception {
        PopMessageRequestHeader h = new PopMessageRequestHeader();
        h.setConsumerGroup(group);
        h.setTopic(topic);
        h.setQueueId(queueId);
        h.setMaxMsgNums(max);
        h.setInvisibleTime(invisibleMs);
        h.setPollTime(pollMs);
        h.setBornTime(System.currentTimeMillis());
        h.setInitMode(0);
        h.setExpType("TAG");
        h.setExp("*");
        h.setOrder(order);
        h.setAttemptId(attemptId);
        CompletableFuture<PopResult> result = new CompletableFuture<>();
        api.popMessageAsync(brokerName, address, h, TIMEOUT_MS, new PopCallback() {
            @Override
            public void onSuccess(PopResult popResult) {
                result.complete(popResult);
            }

            @Override
            public void onException(Throwable e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    PopResult pop(String topic, int queueId, int max, long invisibleMs, long pollMs) throws Exception {
        return popAsync(topic, queueId, max, invisibleMs, pollMs).get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    /** ACK_MESSAGE as the push consumer sends it: the real topic rebuilt from the receipt. */
    AckResult ack(MessageExt m, String extraInfo) throws Exception {
        String[] fields = ExtraInfoUtil.split(extraInfo);
        AckMessageRequestHeader h = new AckMessageRequestHeader();
        h.setConsumerGroup(group);
        h.setTopic(ExtraInfoUtil.getRealTopic(fields, m.getTopic(), group));
        h.setQueueId(ExtraInfoUtil.getQueueId(fields));
        h.setOffset(ExtraInfoUtil.getQueueOffset(fields));
        h.setExtraInfo(extraInfo);
        CompletableFuture<AckResult> result = new CompletableFuture<>();
        api.ackMessageAsync(address, TIMEOUT_MS, callback(result), h);
        return result.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    AckResult ack(MessageExt m) throws Exception {
        return ack(m, m.getProperty(MessageConst.PROPERTY_POP_CK));
    }

    AckResult batchAck(String topic, List<MessageExt> messages) throws Exception {
        CompletableFuture<AckResult> result = new CompletableFuture<>();
        api.batchAckMessageAsync(address, TIMEOUT_MS, callback(result), topic, group,
            messages.stream().map(m -> m.getProperty(MessageConst.PROPERTY_POP_CK)).toList());
        return result.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    /** CHANGE_MESSAGE_INVISIBLETIME; the result's extraInfo is the new receipt the client built. */
    AckResult changeInvisibleTime(MessageExt m, long invisibleMs) throws Exception {
        String extraInfo = m.getProperty(MessageConst.PROPERTY_POP_CK);
        String[] fields = ExtraInfoUtil.split(extraInfo);
        ChangeInvisibleTimeRequestHeader h = new ChangeInvisibleTimeRequestHeader();
        h.setConsumerGroup(group);
        h.setTopic(ExtraInfoUtil.getRealTopic(fields, m.getTopic(), group));
        h.setQueueId(ExtraInfoUtil.getQueueId(fields));
        h.setOffset(ExtraInfoUtil.getQueueOffset(fields));
        h.setExtraInfo(extraInfo);
        h.setInvisibleTime(invisibleMs);
        CompletableFuture<AckResult> result = new CompletableFuture<>();
        api.changeInvisibleTimeAsync(brokerName, address, h, TIMEOUT_MS, callback(result));
        return result.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    /** POLLING_INFO: pops parked for topic@group@queueId. */
    int pollingNum(String topic, int queueId) throws Exception {
        PollingInfoRequestHeader h = new PollingInfoRequestHeader();
        h.setConsumerGroup(group);
        h.setTopic(topic);
        h.setQueueId(queueId);
        RemotingCommand response = api.getRemotingClient().invokeSync(address,
            RemotingCommand.createRequestCommand(200055, h), TIMEOUT_MS);
        PollingInfoResponseHeader r = (PollingInfoResponseHeader) response.decodeCommandCustomHeader(
            PollingInfoResponseHeader.class);
        return r.getPollingNum();
    }

    /** PEEK_MESSAGE (no client method in 5.2.0): the response, its body decoded when SUCCESS. */
    RemotingCommand peek(String topic, int queueId, int max) throws Exception {
        PeekMessageRequestHeader h = new PeekMessageRequestHeader();
        h.setConsumerGroup(group);
        h.setTopic(topic);
        h.setQueueId(queueId);
        h.setMaxMsgNums(max);
        return api.getRemotingClient().invokeSync(address, RemotingCommand.createRequestCommand(200052, h), TIMEOUT_MS);
    }

    /**
     * Waits until the group's next {@code count} messages of a queue are in it (PEEK takes nothing). A send is answered
     * once stored in the CommitLog and its queue entry follows asynchronously: a pop right after the sends could get
     * only part of them.
     */
    void awaitQueued(String topic, int queueId, int count) {
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> {
            RemotingCommand peeked = peek(topic, queueId, 32);
            return peeked.getCode() == org.apache.rocketmq.remoting.protocol.ResponseCode.SUCCESS
                && org.apache.rocketmq.common.message.MessageDecoder.decodes(
                    java.nio.ByteBuffer.wrap(peeked.getBody())).size() >= count;
        });
    }

    private static AckCallback callback(CompletableFuture<AckResult> result) {
        return new AckCallback() {
            @Override
            public void onSuccess(AckResult ackResult) {
                result.complete(ackResult);
            }

            @Override
            public void onException(Throwable e) {
                result.completeExceptionally(e);
            }
        };
    }
}
