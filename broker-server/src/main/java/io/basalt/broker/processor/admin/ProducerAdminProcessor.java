package io.basalt.broker.processor.admin;

import io.basalt.broker.client.ProducerRegistry;
import io.basalt.broker.processor.RequestFields;
import io.basalt.broker.protocol.Connection;
import io.basalt.broker.protocol.ProducerConnection;
import io.basalt.broker.protocol.ProducerTableInfo;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The producers registered here, as RocketMQ's {@code AdminBrokerProcessor} lists them for {@code mqadmin
 * producerConnection} (GET_PRODUCER_CONNECTION_LIST: one group's connections; SYSTEM_ERROR "the producer
 * group[g] not exist" for a group without producers) and {@code mqadmin producer} (GET_ALL_PRODUCER_INFO: every
 * group). Safe for concurrent calls.
 */
public final class ProducerAdminProcessor implements RequestProcessor {
    private final ProducerRegistry producers;

    public ProducerAdminProcessor(ProducerRegistry producers) {
        this.producers = producers;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        RemotingCommand response;
        try {
            response = switch (request.code()) {
                case RequestCode.GET_PRODUCER_CONNECTION_LIST ->
                    connections(new RequestFields(request).requireString("producerGroup"));
                case RequestCode.GET_ALL_PRODUCER_INFO -> table();
                default -> RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                    "request type " + request.code() + " not supported");
            };
        } catch (RequestFields.BadRequestException e) {
            response = RequestFields.badRequest(e);
        }
        return CompletableFuture.completedFuture(response);
    }

    private RemotingCommand connections(String group) {
        List<ProducerRegistry.Producer> members = producers.producers(group);
        if (members.isEmpty()) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "the producer group[" + group + "] not exist");
        }
        Set<Connection> connections = new HashSet<>();
        for (ProducerRegistry.Producer p : members) {
            connections.add(new Connection(p.clientId(), clientAddr(p.connection().remoteAddress()), p.language(),
                p.version()));
        }
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(new ProducerConnection(connections).encode());
        return response;
    }

    private RemotingCommand table() {
        Map<String, List<ProducerTableInfo.ProducerInfo>> data = new LinkedHashMap<>();
        producers.table().forEach((group, members) -> data.put(group, members.stream()
            .map(p -> new ProducerTableInfo.ProducerInfo(p.clientId(), String.valueOf(p.connection().remoteAddress()),
                p.language(), p.version(), p.lastUpdateMillis()))
            .toList()));
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(new ProducerTableInfo(data).encode());
        return response;
    }

    /** RocketMQ's {@code parseChannelRemoteAddr}: {@code ip:port}, without the leading slash. */
    static String clientAddr(SocketAddress address) {
        if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress().getHostAddress() + ":" + inet.getPort();
        }
        String text = String.valueOf(address);
        return text.substring(text.lastIndexOf('/') + 1);
    }
}
