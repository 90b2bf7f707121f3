package io.basalt.broker.grpc;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.EndTransactionRequest;
import apache.rocketmq.v2.EndTransactionResponse;
import apache.rocketmq.v2.TransactionResolution;
import apache.rocketmq.v2.TransactionSource;
import io.basalt.broker.transaction.TransactionalMessages;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * EndTransaction: the transaction's half message is located ({@link TransactionOffsets}) and the decision run as an
 * END_TRANSACTION by the broker's own processor (producer group = topic). Unlike RocketMQ's proxy, which sends it
 * one-way and answers OK regardless, the client gets the broker's actual result.
 */
final class GrpcTransactions {
    private final TransactionOffsets offsets;
    private final RequestProcessor endTransactionProcessor;

    GrpcTransactions(TransactionOffsets offsets, RequestProcessor endTransactionProcessor) {
        this.offsets = offsets;
        this.endTransactionProcessor = endTransactionProcessor;
    }

    CompletableFuture<EndTransactionResponse> end(EndTransactionRequest request, RequestContext context) {
        String topic = request.getTopic().getName();
        String transactionId = request.getTransactionId();
        if (transactionId.isEmpty()) {
            return answer(GrpcCodes.status(Code.INVALID_TRANSACTION_ID, "the request has no transaction_id"));
        }
        int decision;
        if (request.getResolution() == TransactionResolution.COMMIT) {
            decision = TransactionalMessages.TRANSACTION_COMMIT_TYPE;
        } else if (request.getResolution() == TransactionResolution.ROLLBACK) {
            decision = TransactionalMessages.TRANSACTION_ROLLBACK_TYPE;
        } else {
            return answer(GrpcCodes.status(Code.BAD_REQUEST, "resolution must be COMMIT or ROLLBACK, not "
                + request.getResolution() + "; an undecided transaction is asked about again by the back-check"));
        }
        Optional<TransactionOffsets.Location> half = offsets.find(topic, transactionId);
        if (half.isEmpty()) {
            return answer(GrpcCodes.status(Code.INVALID_TRANSACTION_ID, "no half message of transaction "
                + transactionId + " for topic " + topic + " on this broker"));
        }
        RemotingCommand end = RemotingCommand.request(RequestCode.END_TRANSACTION);
        end.putExtField("producerGroup", topic);
        end.putExtField("tranStateTableOffset", Long.toString(half.get().tranStateTableOffset()));
        end.putExtField("commitLogOffset", Long.toString(half.get().commitLogOffset()));
        end.putExtField("commitOrRollback", Integer.toString(decision));
        // Java clients up to 5.0.6 leave the source unset: a client's own decision
        end.putExtField("fromTransactionCheck", Boolean.toString(request.getSource() == TransactionSource.SOURCE_SERVER_CHECK));
        end.putExtField("msgId", request.getMessageId().isEmpty() ? transactionId : request.getMessageId());
        end.putExtField("transactionId", transactionId);
        CompletableFuture<RemotingCommand> response;
        try {
            response = endTransactionProcessor.processRequest(context, end);
        } catch (Exception e) {
            response = CompletableFuture.failedFuture(e);
        }
        return response.handle((r, failure) -> EndTransactionResponse.newBuilder().setStatus(failure != null || r == null
            ? GrpcCodes.status(Code.INTERNAL_SERVER_ERROR, "end transaction failed: " + failure)
            : GrpcCodes.fromRemoting(r.code(), r.remark())).build());
    }

    private static CompletableFuture<EndTransactionResponse> answer(apache.rocketmq.v2.Status status) {
        return CompletableFuture.completedFuture(EndTransactionResponse.newBuilder().setStatus(status).build());
    }
}
