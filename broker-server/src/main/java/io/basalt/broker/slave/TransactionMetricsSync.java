package io.basalt.broker.slave;

import java.io.IOException;

import io.basalt.broker.transaction.TransactionMetrics;
import io.basalt.broker.transaction.TransactionMetricsProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GET_TRANSACTION_METRICS: the master's pending half messages per topic replace the slave's counts and are written
 * to {@code config/transactionMetrics}, so a promoted slave's gauge starts from the master's counts (replication
 * copies the half messages, but not the counting the master did when it stored them). A RocketMQ master does not
 * know the request (REQUEST_CODE_NOT_SUPPORTED): nothing to copy, the counts stay as they are.
 */
final class TransactionMetricsSync implements MetadataSync {
    private static final Logger log = LoggerFactory.getLogger(TransactionMetricsSync.class);

    private final TransactionMetrics metrics;

    TransactionMetricsSync(TransactionMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public String what() {
        return "transaction metrics";
    }

    @Override
    public int requestCode() {
        return TransactionMetricsProcessor.GET_TRANSACTION_METRICS;
    }

    @Override
    public void apply(RemotingCommand response) throws IOException {
        if (response.code() == ResponseCode.REQUEST_CODE_NOT_SUPPORTED) {
            log.debug("the master keeps no transaction metrics for its slaves: {}", response.remark());
            return;
        }
        metrics.replaceWith(MetadataSync.successBody(response, what()));
        metrics.persist();
    }
}
