package io.basalt.broker.processor;

import java.util.concurrent.CompletableFuture;

import io.basalt.ha.ReplicaProtocol;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;

/**
 * GET_HA_PROTOCOLS, Basalt's own request: which replication protocols this broker's HA port speaks,
 * as the {@value #PROTOCOLS} field of the response (comma-separated {@link ReplicaProtocol} names).
 * A slave asks its master's remoting port before connecting to the HA port; a RocketMQ broker
 * answers REQUEST_CODE_NOT_SUPPORTED, which means RocketMQ's classic protocol.
 */
public final class HAProtocolsProcessor implements RequestProcessor {
    /** Next to GET_TRANSACTION_METRICS (10102), outside RocketMQ's request codes. */
    public static final int GET_HA_PROTOCOLS = 10103;
    /** The response field listing the protocols. */
    public static final String PROTOCOLS = "protocols";

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.putExtField(PROTOCOLS, ReplicaProtocol.format(ReplicaProtocol.SPOKEN));
        return CompletableFuture.completedFuture(response);
    }
}
