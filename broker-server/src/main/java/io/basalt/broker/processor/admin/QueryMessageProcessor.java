package io.basalt.broker.processor.admin;

import io.basalt.broker.processor.RequestFields;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.MessageStore;
import io.basalt.store.QueryMessageResult;
import io.basalt.store.SelectedBuffer;

/**
 * Message lookups, as RocketMQ's {@code QueryMessageProcessor} answers them: QUERY_MESSAGE (by key
 * or, with {@code _UNIQUE_KEY_QUERY=true}, by the client's unique message id, through the index;
 * the matching records back to back as the body, RocketMQ's index figures in the response header)
 * and VIEW_MESSAGE_BY_ID (the record at a CommitLog offset, which the client takes from an offset
 * message id). The records are copied out of the mapped files: these are rare operator requests.
 * Safe for concurrent calls.
 */
public final class QueryMessageProcessor extends ImmediateAdminProcessor {
    /** RocketMQ's {@code MixAll.UNIQUE_MSG_QUERY_FLAG}. */
    static final String UNIQUE_KEY_QUERY = "_UNIQUE_KEY_QUERY";
    /** RocketMQ's {@code defaultQueryMaxNum}: the answer size of a unique-key query. */
    static final int DEFAULT_QUERY_MAX_NUM = 32;
    /** RocketMQ's {@code maxMsgsNumBatch}: the most records one query returns, whatever the client asks. */
    static final int MAX_MSGS_NUM_BATCH = 64;

    private final MessageStore store;

    public QueryMessageProcessor(MessageStore store) {
        this.store = store;
    }

    @Override
    protected RemotingCommand answer(RemotingCommand request, RequestFields fields, RequestContext context)
        throws RequestFields.BadRequestException {
        return switch (request.code()) {
            case RequestCode.QUERY_MESSAGE -> queryMessage(fields);
            case RequestCode.VIEW_MESSAGE_BY_ID -> viewMessage(fields.requireLong("offset"));
            default -> null;
        };
    }

    private RemotingCommand queryMessage(RequestFields fields) throws RequestFields.BadRequestException {
        String topic = fields.requireString("topic");
        String key = fields.requireString("key");
        int maxNum = fields.requireInt("maxNum");
        if (fields.bool(UNIQUE_KEY_QUERY, false)) {
            maxNum = DEFAULT_QUERY_MAX_NUM;
        }
        long begin = fields.requireLong("beginTimestamp");
        long end = fields.requireLong("endTimestamp");
        try (QueryMessageResult result = store.queryMessage(topic, key,
            Math.max(1, Math.min(maxNum, MAX_MSGS_NUM_BATCH)), begin, end)) {
            RemotingCommand response;
            if (result.messages().isEmpty()) {
                response = RemotingCommand.response(ResponseCode.QUERY_NOT_FOUND,
                    "can not find message, maybe time range not correct");
            } else {
                response = RemotingCommand.response(ResponseCode.SUCCESS, null);
                response.setBody(concatenate(result));
            }
            response.putExtField("indexLastUpdateTimestamp", Long.toString(result.indexLastUpdateTimestamp()));
            response.putExtField("indexLastUpdatePhyoffset", Long.toString(result.indexLastUpdatePhyOffset()));
            return response;
        }
    }

    private static byte[] concatenate(QueryMessageResult result) {
        int total = 0;
        for (SelectedBuffer buffer : result.messages()) {
            total += buffer.buffer().remaining();
        }
        byte[] body = new byte[total];
        int position = 0;
        for (SelectedBuffer buffer : result.messages()) {
            int size = buffer.buffer().remaining();
            buffer.buffer().duplicate().get(body, position, size);
            position += size;
        }
        return body;
    }

    private RemotingCommand viewMessage(long physicalOffset) {
        try (SelectedBuffer record = physicalOffset < 0 ? null : store.selectOneMessageByOffset(physicalOffset)) {
            if (record == null) {
                return RemotingCommand.response(ResponseCode.SYSTEM_ERROR,
                    "can not find message by the offset, " + physicalOffset);
            }
            byte[] body = new byte[record.buffer().remaining()];
            record.buffer().duplicate().get(body);
            RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
            response.setBody(body);
            return response;
        }
    }
}
