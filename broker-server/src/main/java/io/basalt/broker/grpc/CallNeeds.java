package io.basalt.broker.grpc;

import apache.rocketmq.v2.AckMessageRequest;
import apache.rocketmq.v2.ChangeInvisibleDurationRequest;
import apache.rocketmq.v2.EndTransactionRequest;
import apache.rocketmq.v2.ForwardMessageToDeadLetterQueueRequest;
import apache.rocketmq.v2.HeartbeatRequest;
import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.NotifyClientTerminationRequest;
import apache.rocketmq.v2.QueryAssignmentRequest;
import apache.rocketmq.v2.QueryRouteRequest;
import apache.rocketmq.v2.ReceiveMessageRequest;
import apache.rocketmq.v2.SendMessageRequest;
import apache.rocketmq.v2.Resource;
import apache.rocketmq.v2.Settings;
import apache.rocketmq.v2.SubscriptionEntry;
import apache.rocketmq.v2.TelemetryCommand;
import io.basalt.broker.auth.NeededResources.Need;
import io.basalt.broker.auth.Permission;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The topics and groups a gRPC request touches, and how, as RocketMQ's proxy authorizes them: SendMessage and
 * EndTransaction publish to their topic; QueryRoute needs PUB or SUB on its topic; ReceiveMessage, AckMessage,
 * ChangeInvisibleDuration, ForwardMessageToDeadLetterQueue and QueryAssignment subscribe the group to the topic;
 * Telemetry settings publish to their topics (producer) or subscribe their group to their topics (consumer);
 * Heartbeat and Telemetry's other commands need the group they name and what the client's registered settings need;
 * NotifyClientTermination the group it names. A blank name needs nothing here: the handler refuses it with its own
 * answer.
 */
final class CallNeeds {
    private final Function<String, Optional<Settings>> settingsOf;

    /** @param settingsOf the settings a client id registered with its Telemetry stream */
    CallNeeds(Function<String, Optional<Settings>> settingsOf) {
        this.settingsOf = settingsOf;
    }

    List<Need> of(Object request, String clientId) {
        List<Need> needs = new ArrayList<>(2);
        if (request instanceof SendMessageRequest send) {
            for (Message m : send.getMessagesList()) {
                topic(needs, m.getTopic(), Permission.PUB);
            }
        } else if (request instanceof EndTransactionRequest end) {
            topic(needs, end.getTopic(), Permission.PUB);
        } else if (request instanceof QueryRouteRequest route) {
            topic(needs, route.getTopic(), Permission.ANY);
        } else if (request instanceof ReceiveMessageRequest r) {
            subscribe(needs, r.getGroup(), r.getMessageQueue().getTopic());
        } else if (request instanceof AckMessageRequest r) {
            subscribe(needs, r.getGroup(), r.getTopic());
        } else if (request instanceof ChangeInvisibleDurationRequest r) {
            subscribe(needs, r.getGroup(), r.getTopic());
        } else if (request instanceof ForwardMessageToDeadLetterQueueRequest r) {
            subscribe(needs, r.getGroup(), r.getTopic());
        } else if (request instanceof QueryAssignmentRequest r) {
            subscribe(needs, r.getGroup(), r.getTopic());
        } else if (request instanceof HeartbeatRequest r) {
            group(needs, r.getGroup());
            settingsOf.apply(clientId).ifPresent(s -> settings(needs, s));
        } else if (request instanceof NotifyClientTerminationRequest r) {
            // only the group it names, as RocketMQ: a client that lost a topic's permission must still be able to leave
            group(needs, r.getGroup());
        } else if (request instanceof TelemetryCommand command) {
            if (command.hasSettings()) {
                settings(needs, command.getSettings());
            } else {
                settingsOf.apply(clientId).ifPresent(s -> settings(needs, s));
            }
        }
        return needs;
    }

    private static void settings(List<Need> needs, Settings settings) {
        if (settings.hasPublishing()) {
            for (Resource topic : settings.getPublishing().getTopicsList()) {
                topic(needs, topic, Permission.PUB);
            }
        }
        if (settings.hasSubscription()) {
            group(needs, settings.getSubscription().getGroup());
            for (SubscriptionEntry entry : settings.getSubscription().getSubscriptionsList()) {
                topic(needs, entry.getTopic(), Permission.SUB);
            }
        }
    }

    private static void subscribe(List<Need> needs, Resource group, Resource topic) {
        group(needs, group);
        topic(needs, topic, Permission.SUB);
    }

    private static void topic(List<Need> needs, Resource topic, byte permission) {
        if (!topic.getName().isBlank()) {
            add(needs, Need.topic(topic.getName(), permission));
        }
    }

    private static void group(List<Need> needs, Resource group) {
        if (!group.getName().isBlank()) {
            add(needs, Need.group(group.getName()));
        }
    }

    private static void add(List<Need> needs, Need need) {
        if (!needs.contains(need)) {
            needs.add(need);
        }
    }
}
