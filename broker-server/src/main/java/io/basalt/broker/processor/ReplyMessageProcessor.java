package io.basalt.broker.processor;

import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

import io.basalt.broker.metrics.RocketMqMessageType;
import io.basalt.broker.client.ClientManager;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RemotingConnection;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RemotingCommandException;
import io.basalt.remoting.protocol.ReplyMessageRequestHeader;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.remoting.protocol.SendMessageRequestHeader;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SEND_REPLY_MESSAGE and SEND_REPLY_MESSAGE_V2: the answer a replier sends to a request made with
 * {@code producer.request()}. The request carried CORRELATION_ID, REPLY_TO_CLIENT (the requester's client
 * id) and TTL; the replier's {@code MessageUtil.createReplyMessage} copied them into the reply, addressed
 * to {@code <brokerClusterName>_REPLY_TOPIC}. The reply passes the checks of a send ({@link SendRequestCheck}),
 * is pushed with PUSH_REPLY_MESSAGE_TO_CLIENT to the connection the requester's producer heartbeats came
 * on and, with {@code storeReplyMessageEnable}, is also stored in its topic, with the properties the
 * replier sent.
 *
 * <p>As RocketMQ's ReplyMessageProcessor answers: the code says whether the push succeeded: SUCCESS, or
 * SYSTEM_ERROR with a remark when the reply names no requester, the requester is not connected to this
 * broker (gone, or connected elsewhere), refuses the push or does not answer within {@link #PUSH_TIMEOUT_MS}.
 * The send header carries the stored message's id, queue and offset, or msgId "0" and offset 0 when the
 * reply was not stored; a reply that could not be stored is only logged.
 *
 * <p>Safe for concurrent calls; nothing blocks the calling thread: the push and the store complete on
 * their own threads.
 */
public final class ReplyMessageProcessor implements RequestProcessor {
    private static final Logger log = LoggerFactory.getLogger(ReplyMessageProcessor.class);
    /** How long the requester may take to take a reply (RocketMQ's Broker2Client.callClient). */
    static final long PUSH_TIMEOUT_MS = 10_000;
    static final String PROPERTY_REPLY_TO_CLIENT = "REPLY_TO_CLIENT";
    static final String PROPERTY_PUSH_REPLY_TIME = "PUSH_REPLY_TIME";

    private final StoreHost host;
    private final SendRequestCheck check;
    private final MessageStore store;
    private final ClientManager clients;
    private final boolean storeReplies;
    private final BrokerCounters counters;

    /**
     * @param writable       whether producers' writes are accepted now (as for {@link SendMessageProcessor})
     * @param maxMessageSize largest body accepted, bytes
     * @param clients        where the requesters' connections are found by client id
     * @param storeReplies   {@code storeReplyMessageEnable}: also store each reply in its topic
     */
    public ReplyMessageProcessor(StoreHost host, BooleanSupplier writable, int maxMessageSize, MessageStore store,
                                 TopicConfigManager topics, ClientManager clients, boolean storeReplies,
                                 BrokerCounters counters) {
        this.host = host;
        this.check = new SendRequestCheck(host, writable, maxMessageSize, topics);
        this.store = store;
        this.clients = clients;
        this.storeReplies = storeReplies;
        this.counters = counters;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        long startNanos = System.nanoTime();
        SendMessageRequestHeader header;
        try {
            header = SendMessageRequestHeader.parse(request);
        } catch (RemotingCommandException e) {
            return CompletableFuture.completedFuture(RemotingCommand.response(BrokerResponseCode.INVALID_PARAMETER,
                "bad reply request header: " + e.getMessage()));
        }
        SendRequestCheck.Verdict verdict = check.check(header, request.body(), context.remoteAddress(), false);
        if (verdict instanceof SendRequestCheck.Refused refused) {
            return CompletableFuture.completedFuture(refused.response());
        }
        int queueId = ((SendRequestCheck.Accepted) verdict).queueId();
        String properties = header.getProperties() == null ? "" : header.getProperties();
        InetSocketAddress replier = (InetSocketAddress) context.remoteAddress();
        CompletableFuture<String> pushFailure = push(header, properties, request.body(), replier);
        if (!storeReplies) {
            return pushFailure.thenApply(failure -> response(failure, queueId, null));
        }
        BrokerMessage message = BrokerMessage.builder().topic(header.getTopic()).queueId(queueId)
            .flag(header.getFlag()).body(request.body()).propertiesString(properties)
            .bornTimestamp(header.getBornTimestamp()).bornHost(replier).storeHost(host.address())
            .sysFlag(header.getSysFlag())
            .reconsumeTimes(header.getReconsumeTimes() == null ? 0 : header.getReconsumeTimes()).build();
        CompletableFuture<Stored> stored = store.asyncPutMessage(message)
            .thenApply(result -> storedOrNull(result, message, startNanos));
        // a store that failed stop fails the waiting put: SERVICE_NOT_AVAILABLE, as for a send, not a processor error
        return pushFailure.thenCombine(stored, (failure, m) -> response(failure, queueId, m))
            .exceptionally(failure -> SendMessageProcessor.refusedAfterFailStop(failure).toResponse());
    }

    /** Pushes the reply to its requester; completes with null once it took it, else with why not. */
    private CompletableFuture<String> push(SendMessageRequestHeader header, String properties, byte[] body,
                                           InetSocketAddress replier) {
        String requester = MessageProperties.parse(properties).get(PROPERTY_REPLY_TO_CLIENT);
        if (requester == null) {
            log.warn("a reply from {} names no requester ({} is missing); not pushed", replier, PROPERTY_REPLY_TO_CLIENT);
            return CompletableFuture.completedFuture("reply message properties[" + PROPERTY_REPLY_TO_CLIENT + "] is null");
        }
        Optional<RemotingConnection> connection = clients.producerConnection(requester);
        if (connection.isEmpty()) {
            String failure = "push reply message fail, channel of <" + requester + "> not found.";
            log.warn("{} (the requester is gone, or not connected to this broker)", failure);
            return CompletableFuture.completedFuture(failure);
        }
        ReplyMessageRequestHeader pushHeader = ReplyMessageRequestHeader.of(header);
        pushHeader.setBornHost(hostPort(replier));
        pushHeader.setStoreHost(hostPort(host.address()));
        long now = System.currentTimeMillis();
        pushHeader.setStoreTimestamp(now);
        pushHeader.setProperties(withProperty(properties, PROPERTY_PUSH_REPLY_TIME, Long.toString(now)));
        RemotingCommand push = RemotingCommand.request(RequestCode.PUSH_REPLY_MESSAGE_TO_CLIENT, pushHeader);
        push.setBody(body);
        String failure = "push reply message to " + requester + " fail.";
        return connection.get().invoke(push, PUSH_TIMEOUT_MS).handle((answer, error) -> {
            if (error != null) {
                log.warn("pushing a reply to {} at {} failed: {}", requester, connection.get().remoteAddress(),
                    error.toString());
                return failure;
            }
            if (answer.code() != ResponseCode.SUCCESS) {
                log.warn("requester {} refused a reply: code {}, {}", requester, answer.code(), answer.remark());
                return failure;
            }
            return null;
        });
    }

    /** Where a reply was stored: its offset message id, queue and consume-queue offset. */
    private record Stored(String msgId, int queueId, long queueOffset) {
    }

    private Stored storedOrNull(PutMessageResult result, BrokerMessage message, long startNanos) {
        long storedBytes = result.status().isStored() && result.appendResult() != null ? result.appendResult().wroteBytes() : 0;
        counters.putResult(message.topic(), result.status(), 1, message.body().length, storedBytes,
            System.nanoTime() - startNanos);
        if (!result.status().isStored()) {
            log.warn("a reply to {} was not stored: {} {}", message.topic(), result.status(),
                result.reason() == null ? "" : result.reason());
            return null;
        }
        counters.stored(message.topic(), RocketMqMessageType.of(message.propertiesString()),
            result.appendResult().messageCount(), result.appendResult().wroteBytes());
        return new Stored(message.offsetMsgId(), message.queueId(), result.appendResult().queueOffset());
    }

    /**
     * The replier's answer: SUCCESS unless the push failed. Its send header names the stored reply, or
     * RocketMQ's placeholders (msgId "0", offset 0) when nothing was stored.
     */
    private static RemotingCommand response(String pushFailure, int queueId, Stored stored) {
        RemotingCommand response = pushFailure == null
            ? RemotingCommand.response(ResponseCode.SUCCESS, null)
            : RemotingCommand.response(ResponseCode.SYSTEM_ERROR, pushFailure);
        if (stored != null) {
            response.putExtField("msgId", stored.msgId());
            response.putExtField("queueId", Integer.toString(stored.queueId()));
            response.putExtField("queueOffset", Long.toString(stored.queueOffset()));
        } else if (pushFailure == null) {
            response.putExtField("msgId", "0");
            response.putExtField("queueId", Integer.toString(queueId));
            response.putExtField("queueOffset", "0");
        }
        response.putExtField("MSG_REGION", SendOutcome.REGION);
        response.putExtField("TRACE_ON", "true");
        return response;
    }

    private static String hostPort(InetSocketAddress address) {
        return address.getAddress().getHostAddress() + ":" + address.getPort();
    }

    private static String withProperty(String properties, String name, String value) {
        StringBuilder sb = new StringBuilder(properties.length() + 32).append(properties);
        if (sb.length() > 0 && sb.charAt(sb.length() - 1) != MessageProperties.PROPERTY_SEPARATOR) {
            sb.append(MessageProperties.PROPERTY_SEPARATOR);
        }
        return sb.append(name).append(MessageProperties.NAME_VALUE_SEPARATOR).append(value)
            .append(MessageProperties.PROPERTY_SEPARATOR).toString();
    }
}
