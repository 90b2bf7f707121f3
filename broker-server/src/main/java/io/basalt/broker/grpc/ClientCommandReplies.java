package io.basalt.broker.grpc;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.TelemetryCommand;
import io.basalt.broker.client.SubscriptionData;
import io.basalt.broker.protocol.Json;

import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A gRPC client's Telemetry replies as the remoting responses the broker's admin callers expect (what RocketMQ's
 * proxy relays): a {@code thread_stack_trace} becomes a {@code ConsumerRunningInfo} whose jstack is the client's
 * stack, a {@code verify_message_result} a {@code ConsumeMessageDirectlyResult}. Where the proxy answers SUCCESS
 * without a consume result (the Java SDK 5.0.7 answers every verify command NOT_IMPLEMENTED), Basalt answers an
 * error naming the client's status: nothing was consumed.
 */
final class ClientCommandReplies {
    /** What the broker knows of the consumer from its registration, for the running info's properties. */
    record ConsumerFacts(String consumeType, String clientVersion, long startMillis, List<SubscriptionData> subscriptions) { }

    private ClientCommandReplies() {
    }

    /**
     * The GET_CONSUMER_RUNNING_INFO response for the client's {@code thread_stack_trace} reply; {@code withJstack}
     * says whether the caller asked for the stack (it is left out otherwise).
     */
    static RemotingCommand runningInfo(TelemetryCommand reply, boolean withJstack, ConsumerFacts facts) {
        Code code = reply.getStatus().getCode();
        if (reply.hasStatus() && code != Code.OK) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "the gRPC client answered the thread stack"
                + " request with " + code + ": " + reply.getStatus().getMessage());
        }
        Map<String, Object> json = new TreeMap<String, Object>();
        if (withJstack) {
            json.put("jstack", reply.getThreadStackTrace().getThreadStackTrace());
        }
        json.put("mqPopTable", new TreeMap<String, Object>());
        json.put("mqTable", new TreeMap<String, Object>());
        Map<String, Object> properties = new TreeMap<String, Object>();
        // the properties mqadmin consumerStatus reads for every client it analyzes
        properties.put("PROP_CONSUME_TYPE", facts.consumeType());
        properties.put("PROP_CLIENT_VERSION", facts.clientVersion());
        properties.put("PROP_CONSUMER_START_TIMESTAMP", Long.toString(facts.startMillis()));
        json.put("properties", properties);
        json.put("statusTable", new TreeMap<String, Object>());
        List<Object> subs = new ArrayList<>();
        facts.subscriptions().stream().sorted(Comparator.comparing(SubscriptionData::topic)).forEach(s -> subs.add(
            new io.basalt.broker.protocol.SubscriptionData(s.topic(), s.subString(), s.tagsSet(), s.codeSet(),
                s.subVersion(), s.expressionType(), false).toJson()));
        json.put("subscriptionSet", subs);
        json.put("userConsumerInfo", new TreeMap<String, Object>());
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(Json.encode(json));
        return response;
    }

    /** The CONSUME_MESSAGE_DIRECTLY response for the client's {@code verify_message_result} reply. */
    static RemotingCommand consumeMessageDirectly(TelemetryCommand reply) {
        Code code = reply.getStatus().getCode();
        String result = switch (code) {
            case OK -> "CR_SUCCESS";
            case FAILED_TO_CONSUME_MESSAGE -> "CR_LATER";
            case MESSAGE_CORRUPTED -> "CR_RETURN_NULL";
            default -> null;
        };
        if (result == null) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "the gRPC client answered the message"
                + " verification with " + code + (reply.getStatus().getMessage().isEmpty() ? ""
                : ": " + reply.getStatus().getMessage()) + "; the message was not consumed");
        }
        Map<String, Object> json = new TreeMap<String, Object>();
        json.put("autoCommit", true);
        json.put("consumeResult", result);
        json.put("order", false);
        json.put("remark", "from gRPC client");
        json.put("spentTimeMills", 0L);
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(Json.encode(json));
        return response;
    }
}
