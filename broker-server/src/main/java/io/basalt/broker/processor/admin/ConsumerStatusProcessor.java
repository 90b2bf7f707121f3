package io.basalt.broker.processor.admin;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import io.basalt.broker.client.ClientManager;
import io.basalt.broker.client.ConsumerGroupInfo;
import io.basalt.broker.processor.RequestFields;
import io.basalt.broker.protocol.GetConsumerStatusBody;
import io.basalt.broker.protocol.MessageQueue;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;

/**
 * INVOKE_BROKER_TO_GET_CONSUMER_STATUS ({@code mqadmin getConsumerStatus}): asks each online client of the group
 * (or only the one whose clientId is {@code clientAddr}) for its offsets of the topic with
 * GET_CONSUMER_STATUS_FROM_CLIENT, all at once, 5 s each, and answers clientId → (queue → offset). A group with no
 * online client, or no client {@code clientAddr}, is an error naming it (RocketMQ 5.2.0 answers a group it never
 * saw with a NullPointerException); clients that did not answer are named in the remark of a SUCCESS answer.
 * Safe for concurrent calls.
 */
public final class ConsumerStatusProcessor implements RequestProcessor {
    /** RocketMQ's {@code Broker2Client.getConsumeStatus} timeout per client. */
    private static final long CLIENT_TIMEOUT_MS = 5_000;

    private final ClientManager clients;

    public ConsumerStatusProcessor(ClientManager clients) {
        this.clients = clients;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        if (request.code() != RequestCode.INVOKE_BROKER_TO_GET_CONSUMER_STATUS) {
            return CompletableFuture.completedFuture(RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                "request type " + request.code() + " not supported"));
        }
        RequestFields fields = new RequestFields(request);
        String topic;
        String group;
        try {
            topic = fields.requireString("topic");
            group = fields.requireString("group");
        } catch (RequestFields.BadRequestException e) {
            return CompletableFuture.completedFuture(RequestFields.badRequest(e));
        }
        String clientAddr = fields.string("clientAddr");
        ConsumerGroupInfo info = clients.consumerGroup(group);
        List<ConsumerGroupInfo.Member> members = info == null ? List.of() : info.members().stream()
            .filter(m -> m.connection() != null && m.connection().isActive())
            .filter(m -> clientAddr == null || m.clientId().equals(clientAddr)).toList();
        if (members.isEmpty()) {
            return CompletableFuture.completedFuture(RemotingCommand.response(ResponseCode.SYSTEM_ERROR, clientAddr == null
                ? "No Any Consumer online in the consumer group: [" + group + "]"
                : "The Consumer <" + group + "> <" + clientAddr + "> not online"));
        }
        Map<String, Map<MessageQueue, Long>> table = new TreeMap<>();
        List<String> failed = new ArrayList<>();
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (ConsumerGroupInfo.Member member : members) {
            if (member.version() < OffsetResetProcessor.V3_0_7) {
                synchronized (failed) {
                    failed.add(member.clientId() + " (client version too old)");
                }
                continue;
            }
            RemotingCommand ask = RemotingCommand.request(RequestCode.GET_CONSUMER_STATUS_FROM_CLIENT);
            ask.putExtField("topic", topic);
            ask.putExtField("group", group);
            calls.add(member.connection().invoke(ask, CLIENT_TIMEOUT_MS).handle((answer, error) -> {
                String problem = null;
                if (error != null) {
                    problem = error.toString();
                } else if (answer.code() != ResponseCode.SUCCESS || answer.body() == null) {
                    problem = "code " + answer.code() + " " + answer.remark();
                } else {
                    try {
                        Map<MessageQueue, Long> offsets = GetConsumerStatusBody.decode(answer.body()).messageQueueTable();
                        synchronized (table) {
                            table.put(member.clientId(), offsets);
                        }
                    } catch (RuntimeException e) {
                        problem = "unreadable answer: " + e.getMessage();
                    }
                }
                if (problem != null) {
                    synchronized (failed) {
                        failed.add(member.clientId() + " (" + problem + ")");
                    }
                }
                return null;
            }));
        }
        return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).handle((done, error) -> {
            if (table.isEmpty()) {
                return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "no consumer of group " + group
                    + " answered with its offsets of topic " + topic + ": " + String.join(", ", failed));
            }
            RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, failed.isEmpty() ? null
                : "clients that did not answer: " + String.join(", ", failed));
            synchronized (table) {
                response.setBody(new GetConsumerStatusBody(Map.of(), table).encode());
            }
            return response;
        });
    }
}
