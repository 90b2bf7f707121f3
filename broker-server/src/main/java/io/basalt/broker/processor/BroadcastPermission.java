package io.basalt.broker.processor;

import io.basalt.broker.client.ConsumerGroupInfo;
import io.basalt.broker.subscription.SubscriptionGroupConfig;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;

/**
 * A group's {@code consumeBroadcastEnable}: with {@code false}, pulls of a group whose consumers heartbeat as
 * BROADCASTING are refused with NO_PERMISSION and RocketMQ's remark and {@code forbiddenType}. RocketMQ decides
 * by the message model of the group's latest heartbeat and checks only pulls that carry no subscription (push
 * consumers); Basalt checks every pull of such a group, so that a lite pull consumer in broadcasting mode is
 * refused too. Stateless; any thread.
 */
final class BroadcastPermission {
    /** RocketMQ's {@code ForbiddenType.BROADCASTING_DISABLE_FORBIDDEN}. */
    static final int BROADCASTING_DISABLE_FORBIDDEN = 4;
    private static final String BROADCASTING = "BROADCASTING";

    private BroadcastPermission() {
    }

    /** The refusal for a pull of {@code config}'s group while {@code online} is its live state, or null to go on. */
    static RemotingCommand refusal(SubscriptionGroupConfig config, ConsumerGroupInfo online) {
        if (config.consumeBroadcastEnable() || online == null || !BROADCASTING.equals(online.messageModel())) {
            return null;
        }
        RemotingCommand response = RemotingCommand.response(ResponseCode.NO_PERMISSION,
            "the consumer group[" + config.groupName() + "] can not consume by broadcast way");
        response.putExtField("forbiddenType", Integer.toString(BROADCASTING_DISABLE_FORBIDDEN));
        return response;
    }
}
