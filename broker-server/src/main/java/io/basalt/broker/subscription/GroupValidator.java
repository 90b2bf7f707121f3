package io.basalt.broker.subscription;

import io.basalt.broker.topic.TopicValidator;

/** RocketMQ's consumer group name rules ({@code TopicValidator.isTopicOrGroupIllegal}, {@code MixAll.isSysConsumerGroup}). */
public final class GroupValidator {
    /** RocketMQ's {@code Validators.CHARACTER_MAX_LENGTH}. */
    public static final int GROUP_MAX_LENGTH = 255;
    /** Groups named so are RocketMQ's own; they are created on first use even without auto-creation. */
    static final String SYSTEM_GROUP_PREFIX = "CID_RMQ_SYS_";

    private GroupValidator() {
    }

    /** Why the name is not a valid group name, or null when it is. */
    public static String invalidReason(String group) {
        return TopicValidator.invalidName("group", group, GROUP_MAX_LENGTH);
    }

    static boolean isSystemGroup(String group) {
        return group.startsWith(SYSTEM_GROUP_PREFIX);
    }
}
