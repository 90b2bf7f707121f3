package io.basalt.broker.transaction;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;

import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;

/**
 * GET_TRANSACTION_METRICS, Basalt's own request (RocketMQ's slaves do not copy {@code config/transactionMetrics}, so
 * a promoted RocketMQ slave counts its pending half messages from 0): the body is the file's JSON as it would be
 * written now. A slave's sync asks for it with the other tables. A RocketMQ master answers REQUEST_CODE_NOT_SUPPORTED.
 */
public final class TransactionMetricsProcessor implements RequestProcessor {
    /** Next to PROMOTE_TO_MASTER (10101), outside RocketMQ's request codes. */
    public static final int GET_TRANSACTION_METRICS = 10102;

    private final TransactionMetrics metrics;

    public TransactionMetricsProcessor(TransactionMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request)
        throws IOException {
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(metrics.encode());
        return CompletableFuture.completedFuture(response);
    }
}
