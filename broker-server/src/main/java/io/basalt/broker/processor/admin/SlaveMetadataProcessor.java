package io.basalt.broker.processor.admin;

import java.io.IOException;
import java.util.function.Supplier;
import java.util.concurrent.CompletableFuture;

import io.basalt.broker.assignment.MessageRequestModes;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.protocol.ConsumerOffsetSerializeWrapper;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;

/**
 * What a master hands its slaves besides the topic and group tables (which {@link TopicAdminProcessor} and
 * {@link SubscriptionGroupAdminProcessor} answer): GET_ALL_CONSUMER_OFFSET (RocketMQ's
 * {@code ConsumerOffsetManager} JSON: {@code dataVersion}, {@code offsetTable} with unquoted queue ids),
 * GET_ALL_DELAY_OFFSET and GET_ALL_MESSAGE_REQUEST_MODE. GET_ALL_DELAY_OFFSET is the schedule service's
 * table ({@code delayOffset.json} in compact form; on a slave, the copy of its master's), an empty table as RocketMQ's
 * running broker answers it. GET_ALL_MESSAGE_REQUEST_MODE answers the broker's {@link MessageRequestModes} (an empty
 * table as RocketMQ's empty manager, {@code {"messageRequestModeMap":{}}}).
 * Safe for concurrent calls.
 */
public final class SlaveMetadataProcessor implements RequestProcessor {
    private final ConsumerOffsetManager offsets;
    private final Supplier<byte[]> delayOffsets;
    private final MessageRequestModes requestModes;

    /** @param delayOffsets the GET_ALL_DELAY_OFFSET body */
    public SlaveMetadataProcessor(ConsumerOffsetManager offsets, MessageRequestModes requestModes,
                                  Supplier<byte[]> delayOffsets) {
        this.offsets = offsets;
        this.delayOffsets = delayOffsets;
        this.requestModes = requestModes;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request)
        throws IOException {
        RemotingCommand response = switch (request.code()) {
            case RequestCode.GET_ALL_CONSUMER_OFFSET ->
                success(new ConsumerOffsetSerializeWrapper(offsets.offsetTable(), offsets.dataVersion()).encode());
            case RequestCode.GET_ALL_DELAY_OFFSET -> success(delayOffsets.get());
            case RequestCode.GET_ALL_MESSAGE_REQUEST_MODE -> success(requestModes.encode());
            default -> RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                "request code " + request.code() + " not supported");
        };
        return CompletableFuture.completedFuture(response);
    }

    private static RemotingCommand success(byte[] body) {
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(body);
        return response;
    }
}
