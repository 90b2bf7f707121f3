package io.basalt.broker.auth;

import java.util.Map;

/**
 * One account of an ACL 1.0 file ({@code plain_acl.yml}): its keys, the address rule that lets it in without a
 * signature, whether it is an admin, and its permissions on topics and groups. Immutable; {@link #toString()} never
 * shows the secret key.
 *
 * @param accessKey          the account name (at least 7 characters, as RocketMQ requires)
 * @param secretKey          the HMAC key of its requests (at least 7 characters)
 * @param whiteRemoteAddress addresses whose requests skip the signature and permission checks (RocketMQ's rule)
 * @param admin              all resources and every admin code
 * @param defaultTopicPerm   the permission on a topic not in {@code topicPerms}
 * @param defaultGroupPerm   the permission on a group not in {@code groupPerms}
 * @param topicPerms         topic → permission
 * @param groupPerms         group (without {@code %RETRY%}) → permission
 * @param file               the file it was read from
 */
public record PlainAccount(String accessKey, String secretKey, AddressPattern whiteRemoteAddress, boolean admin,
                           byte defaultTopicPerm, byte defaultGroupPerm, Map<String, Byte> topicPerms,
                           Map<String, Byte> groupPerms, String file) {
    /** RocketMQ refuses keys of 6 characters or fewer. */
    public static final int MIN_KEY_LENGTH = 7;

    public PlainAccount {
        topicPerms = Map.copyOf(topicPerms);
        groupPerms = Map.copyOf(groupPerms);
    }

    /** The permission this account owns on {@code topic}, and whether an explicit entry gave it. */
    byte topicPermission(String topic) {
        Byte explicit = topicPerms.get(topic);
        return explicit != null ? explicit : defaultTopicPerm;
    }

    /** The permission this account owns on {@code group} (a plain group name). */
    byte groupPermission(String group) {
        Byte explicit = groupPerms.get(group);
        return explicit != null ? explicit : defaultGroupPerm;
    }

    @Override
    public String toString() {
        return "PlainAccount[accessKey=" + accessKey + ", admin=" + admin + ", whiteRemoteAddress=" + whiteRemoteAddress
            + ", defaultTopicPerm=" + Permission.name(defaultTopicPerm) + ", defaultGroupPerm="
            + Permission.name(defaultGroupPerm) + ", topics=" + topicPerms.size() + ", groups=" + groupPerms.size()
            + ", file=" + file + "]";
    }
}
