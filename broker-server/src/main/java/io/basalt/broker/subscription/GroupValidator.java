package io.basalt.broker.subscription;

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
        if (group == null || group.isBlank()) {
            return "the specified group is blank.";
        }
        if (group.length() > GROUP_MAX_LENGTH) {
            return "the specified group is longer than group max length " + GROUP_MAX_LENGTH + ".";
        }
        for (int i = 0; i < group.length(); i++) {
            char c = group.charAt(i);
            boolean ok = c == '%' || c == '|' || c == '_' || c == '-' || (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
            if (!ok) {
                return "the specified group[" + group + "] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$";
            }
        }
        return null;
    }

    static boolean isSystemGroup(String group) {
        return group.startsWith(SYSTEM_GROUP_PREFIX);
    }
}
