package io.basalt.broker.auth;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.basalt.broker.protocol.HeartbeatData;
import io.basalt.broker.protocol.LockBatchBody;
import io.basalt.broker.protocol.MessageQueue;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;

/**
 * The topics and groups a request needs, and how (PUB or SUB): RocketMQ 5.2.0's table
 * ({@code PlainAccessResource.parse}), with the holes it leaves closed the way RocketMQ 5.3 closes them:
 *
 * <ul>
 * <li>a retry topic ({@code %RETRY%g}) is the group {@code g}, wherever it appears (5.2.0 checks a V2 send's
 *     producer group instead, and nothing for a V1 send);</li>
 * <li>LITE_PULL_MESSAGE needs what PULL_MESSAGE needs (5.2.0 checks nothing: a lite-pull consumer in
 *     {@code assign()} mode read any topic with only a signature);</li>
 * <li>QUERY_CONSUMER_OFFSET, LOCK_BATCH_MQ and UNLOCK_BATCH_MQ need their group and topics (5.3's rule), and
 *     reply sends their topic, as other sends.</li>
 * </ul>
 *
 * Codes not listed need no topic or group: a valid signature is enough (admin codes are {@link AdminCodes}').
 * The gRPC endpoint names its calls' needs with {@link Need#topic} and {@link Need#group}. Stateless.
 */
public final class NeededResources {
    /** A topic or a group the request touches, and the permission it needs there. */
    public record Need(boolean group, String name, byte permission) {
        /**
         * {@code topic} needed with {@code permission} ({@link Permission#PUB}, {@link Permission#SUB}, or
         * {@link Permission#ANY} for "PUB or SUB"); a retry topic ({@code %RETRY%g}) is the group g.
         */
        public static Need topic(String topic, byte permission) {
            return topic.startsWith(PlainAclFile.RETRY_PREFIX) ? group(topic) : new Need(false, topic, permission);
        }

        /** {@code group} needed to subscribe; {@code %RETRY%g} is the group g. */
        public static Need group(String group) {
            return new Need(true, group.startsWith(PlainAclFile.RETRY_PREFIX)
                ? group.substring(PlainAclFile.RETRY_PREFIX.length()) : group, Permission.SUB);
        }

        String describe() {
            return (group ? "group:" : "topic:") + name;
        }
    }

    /** Where a check reads a request's needs from, when it gets that far. */
    @FunctionalInterface
    interface Source {
        List<Need> needs() throws Unreadable;
    }

    /** A request whose resources cannot be read (a missing field, a body that does not decode). */
    static final class Unreadable extends Exception {
        Unreadable(String message) {
            super(message);
        }
    }

    private NeededResources() {
    }

    static List<Need> of(RemotingCommand request) throws Unreadable {
        Map<String, String> f = request.extFields() == null ? Map.of() : request.extFields();
        List<Need> needs = new ArrayList<>(2);
        switch (request.code()) {
            case RequestCode.SEND_MESSAGE, RequestCode.SEND_REPLY_MESSAGE -> topic(needs, field(f, "topic"), Permission.PUB);
            case RequestCode.SEND_MESSAGE_V2, RequestCode.SEND_BATCH_MESSAGE, RequestCode.SEND_REPLY_MESSAGE_V2 ->
                topic(needs, field(f, "b"), Permission.PUB);
            case RequestCode.CONSUMER_SEND_MSG_BACK -> group(needs, field(f, "group"));
            case RequestCode.PULL_MESSAGE, RequestCode.LITE_PULL_MESSAGE, RequestCode.QUERY_CONSUMER_OFFSET,
                RequestCode.UPDATE_CONSUMER_OFFSET -> {
                topic(needs, field(f, "topic"), Permission.SUB);
                group(needs, field(f, "consumerGroup"));
            }
            case RequestCode.QUERY_MESSAGE -> topic(needs, field(f, "topic"), Permission.SUB);
            case RequestCode.HEART_BEAT -> heartbeat(needs, request.body());
            case RequestCode.UNREGISTER_CLIENT -> {
                String group = f.get("consumerGroup");
                if (group != null && !group.isEmpty()) {
                    group(needs, group);
                }
            }
            case RequestCode.GET_CONSUMER_LIST_BY_GROUP -> group(needs, field(f, "consumerGroup"));
            case RequestCode.LOCK_BATCH_MQ, RequestCode.UNLOCK_BATCH_MQ -> lock(needs, request.body());
            default -> {
            }
        }
        return needs;
    }

    private static String field(Map<String, String> fields, String name) throws Unreadable {
        String value = fields.get(name);
        if (value == null || value.isEmpty()) {
            throw new Unreadable("the request has no " + name);
        }
        return value;
    }

    /** A topic needs {@code permission}; a retry topic is its group (SUB). */
    private static void topic(List<Need> needs, String topic, byte permission) {
        add(needs, Need.topic(topic, permission));
    }

    /** A group needs SUB; {@code %RETRY%g} is the group g. */
    private static void group(List<Need> needs, String group) {
        add(needs, Need.group(group));
    }

    private static void add(List<Need> needs, Need need) {
        if (!needs.contains(need)) {
            needs.add(need);
        }
    }

    private static void heartbeat(List<Need> needs, byte[] body) throws Unreadable {
        HeartbeatData data;
        try {
            data = HeartbeatData.decode(body);
        } catch (IOException e) {
            throw new Unreadable("the heartbeat body does not decode: " + e.getMessage());
        }
        for (HeartbeatData.ConsumerData consumer : data.consumers()) {
            group(needs, consumer.groupName());
            for (HeartbeatData.Subscription s : consumer.subscriptions()) {
                topic(needs, s.topic(), Permission.SUB);
            }
        }
    }

    private static void lock(List<Need> needs, byte[] body) throws Unreadable {
        LockBatchBody lock;
        try {
            lock = LockBatchBody.decode(body);
        } catch (RuntimeException e) {
            throw new Unreadable("the lock body does not decode: " + e.getMessage());
        }
        group(needs, lock.consumerGroup());
        for (MessageQueue mq : lock.mqSet()) {
            topic(needs, mq.topic(), Permission.SUB);
        }
    }
}
