package io.basalt.broker.processor.admin;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;

import io.basalt.broker.processor.RequestFields;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An admin processor that answers at once from its request's header fields. {@link #answer} maps a
 * request code to its response, or to null for a code it does not serve (REQUEST_CODE_NOT_SUPPORTED).
 * A missing or bad field is answered as RocketMQ answers a header it cannot decode; a config file
 * that could not be persisted is a SYSTEM_ERROR whose remark names the file.
 */
abstract class ImmediateAdminProcessor implements RequestProcessor {
    private static final Logger log = LoggerFactory.getLogger(ImmediateAdminProcessor.class);

    /** The response to {@code request}, or null when this processor does not serve its code. */
    protected abstract RemotingCommand answer(RemotingCommand request, RequestFields fields, RequestContext context)
        throws RequestFields.BadRequestException, IOException;

    @Override
    public final CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        RemotingCommand response;
        try {
            response = answer(request, new RequestFields(request), context);
            if (response == null) {
                response = RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                    "request type " + request.code() + " not supported");
            }
        } catch (RequestFields.BadRequestException e) {
            response = RequestFields.badRequest(e);
        } catch (IOException e) {
            log.error("request {} from {} failed: {}", request.code(), context.remoteAddress(), e.getMessage());
            response = RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "persisting failed: " + e.getMessage());
        }
        return CompletableFuture.completedFuture(response);
    }
}
