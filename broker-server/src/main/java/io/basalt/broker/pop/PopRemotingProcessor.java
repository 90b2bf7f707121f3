package io.basalt.broker.pop;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.basalt.broker.processor.RequestFields;
import io.basalt.broker.protocol.Json;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;

/**
 * The remoting face of {@link PopService}: POP_MESSAGE, ACK_MESSAGE, BATCH_ACK_MESSAGE, CHANGE_MESSAGE_INVISIBLETIME,
 * NOTIFICATION, POLLING_INFO and PEEK_MESSAGE with RocketMQ 5.2.0's header fields and bodies. Decodes, calls the
 * service, encodes.
 */
public final class PopRemotingProcessor implements RequestProcessor {
    public static final int POP_MESSAGE = RequestCode.POP_MESSAGE;
    public static final int ACK_MESSAGE = RequestCode.ACK_MESSAGE;
    public static final int CHANGE_MESSAGE_INVISIBLETIME = RequestCode.CHANGE_MESSAGE_INVISIBLETIME;
    public static final int NOTIFICATION = RequestCode.NOTIFICATION;
    public static final int POLLING_INFO = RequestCode.POLLING_INFO;
    public static final int BATCH_ACK_MESSAGE = RequestCode.BATCH_ACK_MESSAGE;
    public static final int PEEK_MESSAGE = RequestCode.PEEK_MESSAGE;

    private final PopService service;

    public PopRemotingProcessor(PopService service) {
        this.service = service;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        RequestFields f = new RequestFields(request);
        try {
            return switch (request.code()) {
                case POP_MESSAGE -> pop(f);
                case ACK_MESSAGE -> done(answer(service.ack(f.requireString("consumerGroup"), f.requireString("topic"),
                    f.requireInt("queueId"), f.requireLong("offset"), f.requireString("extraInfo"))));
                case BATCH_ACK_MESSAGE -> done(answer(service.batchAck(batchEntries(request.body()))));
                case CHANGE_MESSAGE_INVISIBLETIME -> done(changeInvisibleTime(f));
                case NOTIFICATION -> notification(f);
                case POLLING_INFO -> done(pollingInfo(f));
                case PEEK_MESSAGE -> done(peek(f));
                default -> done(RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                    " request type " + request.code() + " not supported"));
            };
        } catch (RequestFields.BadRequestException e) {
            return done(RequestFields.badRequest(e));
        } catch (IllegalArgumentException e) {
            return done(RemotingCommand.response(ResponseCode.MESSAGE_ILLEGAL, e.getMessage()));
        }
    }

    private CompletableFuture<RemotingCommand> pop(RequestFields f) throws RequestFields.BadRequestException {
        // bornTime is the client's clock: read for RocketMQ's header shape, never used for deadlines
        f.longValue("bornTime", 0);
        PopRequest request = new PopRequest(f.requireString("consumerGroup"), f.requireString("topic"),
            f.requireInt("queueId"), f.requireInt("maxMsgNums"), f.requireLong("invisibleTime"),
            f.requireLong("pollTime"), f.requireInt("initMode"), f.string("expType"), f.string("exp"),
            f.bool("order", false), f.string("attemptId"));
        return service.pop(request).thenApply(PopRemotingProcessor::popResponse);
    }

    private static RemotingCommand popResponse(PopResult result) {
        RemotingCommand response = RemotingCommand.response(result.outcome().code(), result.found() ? "FOUND"
            : result.outcome().remark());
        // the 5.2.0 client decodes these (required) fields from every SUCCESS, POLLING_FULL and POLLING_TIMEOUT answer
        if (result.outcome().code() == ResponseCode.SUCCESS || result.outcome().code() == ResponseCode.POLLING_TIMEOUT
            || result.outcome().code() == ResponseCode.POLLING_FULL) {
            response.putExtField("popTime", Long.toString(result.popTime()));
            response.putExtField("invisibleTime", Long.toString(result.invisibleTime()));
            response.putExtField("reviveQid", Integer.toString(result.reviveQid()));
            response.putExtField("restNum", Long.toString(result.restNum()));
        }
        if (result.found()) {
            response.putExtField("startOffsetInfo", result.startOffsetInfo());
            response.putExtField("msgOffsetInfo", result.msgOffsetInfo());
            if (!result.orderCountInfo().isEmpty()) {
                response.putExtField("orderCountInfo", result.orderCountInfo());
            }
            response.setBody(concat(result.messages()));
        }
        return response;
    }

    private RemotingCommand changeInvisibleTime(RequestFields f) throws RequestFields.BadRequestException {
        ChangeInvisibleResult result = service.changeInvisibleTime(f.requireString("consumerGroup"),
            f.requireString("topic"), f.requireInt("queueId"), f.requireLong("offset"), f.requireString("extraInfo"),
            f.requireLong("invisibleTime"));
        RemotingCommand response = answer(result.outcome());
        if (result.outcome().isSuccess()) {
            response.putExtField("popTime", Long.toString(result.newHandle().popTime()));
            response.putExtField("invisibleTime", Long.toString(result.newHandle().invisibleTime()));
            response.putExtField("reviveQid", Integer.toString(result.newHandle().reviveQid()));
        }
        return response;
    }

    private CompletableFuture<RemotingCommand> notification(RequestFields f) throws RequestFields.BadRequestException {
        f.longValue("bornTime", 0);
        CompletableFuture<Boolean> hasMsg = new CompletableFuture<>();
        PopOutcome outcome = service.notification(f.requireString("consumerGroup"), f.requireString("topic"),
            f.requireInt("queueId"), f.requireLong("pollTime"), f.bool("order", false), hasMsg).join();
        if (!outcome.isSuccess()) {
            return done(answer(outcome));
        }
        return hasMsg.thenApply(has -> {
            RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
            response.putExtField("hasMsg", Boolean.toString(has));
            return response;
        });
    }

    /** PEEK_MESSAGE: RocketMQ answers with a POP response header; the body holds the records as for a pop. */
    private RemotingCommand peek(RequestFields f) throws RequestFields.BadRequestException {
        PopResult result = service.peek(f.requireString("consumerGroup"), f.requireString("topic"),
            f.requireInt("queueId"), f.requireInt("maxMsgNums"));
        RemotingCommand response = RemotingCommand.response(result.outcome().code(), result.outcome().remark());
        if (result.outcome().code() == ResponseCode.SUCCESS || result.outcome().code() == ResponseCode.PULL_NOT_FOUND) {
            response.putExtField("popTime", Long.toString(result.popTime()));
            response.putExtField("invisibleTime", "0");
            response.putExtField("reviveQid", "0");
            response.putExtField("restNum", Long.toString(result.restNum()));
            if (result.found()) {
                response.setBody(concat(result.messages()));
            }
        }
        return response;
    }

    private static byte[] concat(List<byte[]> messages) {
        int size = messages.stream().mapToInt(m -> m.length).sum();
        byte[] body = new byte[size];
        int at = 0;
        for (byte[] m : messages) {
            System.arraycopy(m, 0, body, at, m.length);
            at += m.length;
        }
        return body;
    }

    private RemotingCommand pollingInfo(RequestFields f) throws RequestFields.BadRequestException {
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.putExtField("pollingNum", Integer.toString(service.pollingNum(f.requireString("topic"),
            f.requireString("consumerGroup"), f.requireInt("queueId"))));
        return response;
    }

    /** BatchAckMessageRequestBody: {@code {"acks":[{"b":..,"c":..,"it":..,"pt":..,"q":..,"r":..,"rq":..,"so":..,"t":..}]}}. */
    static List<PopService.BatchAckEntry> batchEntries(byte[] body) {
        if (body == null || body.length == 0) {
            return List.of();
        }
        Map<?, ?> root = PopRecords.object(new String(body, java.nio.charset.StandardCharsets.UTF_8));
        List<PopService.BatchAckEntry> entries = new ArrayList<>();
        if (root.get("acks") instanceof List<?> acks) {
            for (Object o : acks) {
                if (!(o instanceof Map<?, ?> a)) {
                    throw new IllegalArgumentException("batch ack entry is not an object: " + Json.write(o));
                }
                String bits = text(a, "b", "bitSet");
                BitSet acked = bits == null ? new BitSet() : BitSet.valueOf(Base64.getDecoder().decode(bits));
                entries.add(new PopService.BatchAckEntry(text(a, "c", "consumerGroup"), text(a, "t", "topic"),
                    Integer.parseInt(orZero(text(a, "r", "retry"))), number(a, "so", "startOffset"),
                    (int) number(a, "q", "queueId"), (int) number(a, "rq", "reviveQueueId"),
                    number(a, "pt", "popTime"), number(a, "it", "invisibleTime"), acked));
            }
        }
        return entries;
    }

    private static String text(Map<?, ?> m, String shortName, String longName) {
        Object v = m.containsKey(shortName) ? m.get(shortName) : m.get(longName);
        return v == null ? null : v.toString();
    }

    private static long number(Map<?, ?> m, String shortName, String longName) {
        return Long.parseLong(orZero(text(m, shortName, longName)));
    }

    private static String orZero(String s) {
        return s == null || s.isBlank() ? "0" : s;
    }

    private static RemotingCommand answer(PopOutcome outcome) {
        return RemotingCommand.response(outcome.code(), outcome.remark());
    }

    private static CompletableFuture<RemotingCommand> done(RemotingCommand response) {
        return CompletableFuture.completedFuture(response);
    }
}
