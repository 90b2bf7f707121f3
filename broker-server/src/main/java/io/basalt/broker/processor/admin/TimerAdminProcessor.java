package io.basalt.broker.processor.admin;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.TimerMessages;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timer wheel's two admin requests, as RocketMQ 5.2.0's {@code AdminBrokerProcessor} answers them:
 * GET_TIMER_CHECK_POINT (a slave polls it every 3 s; body: the checkpoint's 56 bytes) and GET_TIMER_METRICS
 * (body: {@code config/timermetrics} as JSON, pending timers per topic). With {@code timerWheelEnable=false}
 * both answer SYSTEM_ERROR with RocketMQ's remarks, "The checkpoint is null" and "The timer message store is
 * null". Safe for concurrent calls.
 */
public final class TimerAdminProcessor implements RequestProcessor {
    private static final Logger log = LoggerFactory.getLogger(TimerAdminProcessor.class);
    static final String NO_CHECKPOINT = "The checkpoint is null";
    static final String NO_TIMER_STORE = "The timer message store is null";

    private final TimerMessages timers;

    public TimerAdminProcessor(TimerMessages timers) {
        this.timers = timers;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        RemotingCommand response = switch (request.code()) {
            case RequestCode.GET_TIMER_CHECK_POINT -> checkpoint(context);
            case RequestCode.GET_TIMER_METRICS -> metrics(context);
            default -> RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                "request code " + request.code() + " not supported");
        };
        return CompletableFuture.completedFuture(response);
    }

    private RemotingCommand checkpoint(RequestContext context) {
        byte[] body = timers.enabled() ? timers.checkpoint() : null;
        if (body == null || body.length == 0) {
            log.debug("GET_TIMER_CHECK_POINT from {}: the timer wheel is disabled", context.remoteAddress());
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, NO_CHECKPOINT);
        }
        return success(body);
    }

    private RemotingCommand metrics(RequestContext context) {
        String json = timers.enabled() ? timers.metricsJson() : null;
        if (json == null) {
            log.debug("GET_TIMER_METRICS from {}: the timer wheel is disabled", context.remoteAddress());
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, NO_TIMER_STORE);
        }
        return success(json.getBytes(StandardCharsets.UTF_8));
    }

    private static RemotingCommand success(byte[] body) {
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(body);
        return response;
    }
}
