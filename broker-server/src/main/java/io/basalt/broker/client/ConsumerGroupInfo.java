package io.basalt.broker.client;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import io.basalt.remoting.processor.RemotingConnection;

/**
 * The live members of one consumer group and the subscriptions they registered by heartbeat. Thread-safe.
 */
public final class ConsumerGroupInfo {
    static final String REMOTING = "remoting";
    /**
     * A member: its client id, where it connects from, when it was last heard of, and the {@code language}
     * (a LanguageCode name) and {@code version} (RocketMQ's MQVersion ordinal) of its last heartbeat request.
     */
    public record Member(String clientId, String remoteAddress, String consumeType, String messageModel,
                         String consumeFromWhere, long lastUpdateMillis, RemotingConnection connection,
                         String language, int version) {
        /** False once the member's connection closed (a member without a known connection counts as open). */
        boolean connected() {
            return connection == null || connection.isActive();
        }

        /** {@code remoting} or {@code grpc}: the protocol of the member's connection (remoting without one). */
        public String protocol() {
            return connection == null ? REMOTING : connection.protocol();
        }

        /** Whether the member rebalances by remoting (gets NOTIFY_CONSUMER_IDS_CHANGED, takes part in allocation). */
        public boolean remoting() {
            return REMOTING.equals(protocol());
        }
    }

    private final String groupName;
    private final ConcurrentMap<String, Member> members = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, SubscriptionData> subscriptions = new ConcurrentHashMap<>();
    /** The message model of the group's latest heartbeat, as RocketMQ's ConsumerGroupInfo keeps it. */
    private volatile String messageModel;

    ConsumerGroupInfo(String groupName) {
        this.groupName = groupName;
    }

    public String groupName() {
        return groupName;
    }

    /** Records a heartbeat; true when the member is new. */
    boolean register(Member member, List<SubscriptionData> subs) {
        boolean added = members.put(member.clientId(), member) == null;
        messageModel = member.messageModel();
        for (SubscriptionData s : subs) {
            subscriptions.merge(s.topic(), s, (old, now) -> now.subVersion() >= old.subVersion() ? now : old);
        }
        return added;
    }

    boolean unregister(String clientId) {
        return members.remove(clientId) != null;
    }

    /** Drops members not heard of since {@code deadlineMillis}; returns how many. */
    int expire(long deadlineMillis) {
        int before = members.size();
        members.values().removeIf(m -> m.lastUpdateMillis() < deadlineMillis || !m.connected());
        return before - members.size();
    }

    public List<String> clientIds() {
        return members.keySet().stream().sorted().toList();
    }

    /**
     * The ids of the members that rebalance by remoting, which the remoting clients divide the queues among: a gRPC
     * consumer receives by POP from every queue of the broker and never pulls a queue it would be allotted.
     */
    public List<String> remotingClientIds() {
        return members.values().stream().filter(Member::remoting).map(Member::clientId).sorted().toList();
    }

    public List<Member> members() {
        return List.copyOf(members.values());
    }

    public boolean isEmpty() {
        return members.isEmpty();
    }

    /** {@code CLUSTERING} or {@code BROADCASTING}, as the group's latest heartbeat said; null before any. */
    public String messageModel() {
        return messageModel;
    }

    public SubscriptionData subscription(String topic) {
        return subscriptions.get(topic);
    }

    public Map<String, SubscriptionData> subscriptions() {
        return Map.copyOf(subscriptions);
    }
}
