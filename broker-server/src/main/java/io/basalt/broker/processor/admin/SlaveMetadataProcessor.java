package io.basalt.broker.processor.admin;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.concurrent.CompletableFuture;

import io.basalt.broker.JsonConfigFile;
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
 * running broker answers it. Basalt has no POP yet, so GET_ALL_MESSAGE_REQUEST_MODE answers what {@code config/messageRequestMode.json} holds (a store taken over from RocketMQ, or a promoted
 * slave's copy), a missing file RocketMQ's answer of an empty manager, {@code {"messageRequestModeMap":{}}}.
 * Safe for concurrent calls.
 */
public final class SlaveMetadataProcessor implements RequestProcessor {
    static final byte[] NO_REQUEST_MODES = "{\"messageRequestModeMap\":{}}".getBytes(StandardCharsets.UTF_8);

    private final ConsumerOffsetManager offsets;
    private final Supplier<byte[]> delayOffsets;
    private final JsonConfigFile requestModes;

    /**
     * @param configDir    the broker's {@code <storePathRootDir>/config}
     * @param delayOffsets the GET_ALL_DELAY_OFFSET body
     */
    public SlaveMetadataProcessor(ConsumerOffsetManager offsets, Path configDir, Supplier<byte[]> delayOffsets) {
        this.offsets = offsets;
        this.delayOffsets = delayOffsets;
        this.requestModes = new JsonConfigFile(configDir.resolve("messageRequestMode.json"));
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request)
        throws IOException {
        RemotingCommand response = switch (request.code()) {
            case RequestCode.GET_ALL_CONSUMER_OFFSET ->
                success(new ConsumerOffsetSerializeWrapper(offsets.offsetTable(), offsets.dataVersion()).encode());
            case RequestCode.GET_ALL_DELAY_OFFSET -> success(delayOffsets.get());
            case RequestCode.GET_ALL_MESSAGE_REQUEST_MODE -> success(nonEmpty(requestModes.loadExactly())
                .orElse(NO_REQUEST_MODES));
            default -> RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                "request code " + request.code() + " not supported");
        };
        return CompletableFuture.completedFuture(response);
    }

    private static Optional<byte[]> nonEmpty(Optional<byte[]> content) {
        return content.filter(bytes -> bytes.length > 0);
    }

    private static RemotingCommand success(byte[] body) {
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(body);
        return response;
    }
}
