package io.basalt.broker.auth;

import java.util.Set;

import io.basalt.remoting.protocol.RequestCode;

/**
 * The request codes only an admin account (ACL 1.0 {@code admin: true}) or a Super user (ACL 2.0) may send: every
 * code that changes the broker's configuration, topics, groups, offsets, ACLs, files or role. RocketMQ 5.2.0 asks
 * admin rights for five of them only (17, 25, 215, 200, 207), so that any signed account can create an admin
 * account (50) or reset any group's offsets (222); Basalt asks them for all of these. Reads stay open to every
 * signed account, as in RocketMQ (secrets are never in an answer).
 */
public final class AdminCodes {
    /** Basalt's own: promote this slave (bin/mqha promote). */
    public static final int PROMOTE_TO_MASTER = 10101;

    private static final Set<Integer> CODES = Set.of(
        RequestCode.UPDATE_AND_CREATE_TOPIC, RequestCode.UPDATE_BROKER_CONFIG, RequestCode.TRIGGER_DELETE_FILES,
        RequestCode.UPDATE_AND_CREATE_ACL_CONFIG, RequestCode.DELETE_ACL_CONFIG, RequestCode.GET_BROKER_CLUSTER_ACL_INFO,
        RequestCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG, RequestCode.GET_BROKER_CLUSTER_ACL_CONFIG,
        RequestCode.PUT_KV_CONFIG, RequestCode.DELETE_KV_CONFIG,
        RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, RequestCode.WIPE_WRITE_PERM_OF_BROKER,
        RequestCode.DELETE_SUBSCRIPTIONGROUP, RequestCode.SUSPEND_CONSUMER, RequestCode.RESUME_CONSUMER,
        RequestCode.RESET_CONSUMER_OFFSET_IN_CONSUMER, RequestCode.RESET_CONSUMER_OFFSET_IN_BROKER,
        RequestCode.ADJUST_CONSUMER_THREAD_POOL, RequestCode.DELETE_TOPIC_IN_BROKER, RequestCode.DELETE_TOPIC_IN_NAMESRV,
        RequestCode.REGISTER_TOPIC_IN_NAMESRV, RequestCode.INVOKE_BROKER_TO_RESET_OFFSET,
        RequestCode.CLEAN_EXPIRED_CONSUMEQUEUE, RequestCode.CONSUME_MESSAGE_DIRECTLY, RequestCode.CLONE_GROUP_OFFSET,
        RequestCode.CLEAN_UNUSED_TOPIC, RequestCode.UPDATE_NAMESRV_CONFIG, RequestCode.RESUME_CHECK_HALF_MESSAGE,
        RequestCode.ADD_WRITE_PERM_OF_BROKER, RequestCode.DELETE_EXPIRED_COMMITLOG,
        RequestCode.UPDATE_AND_GET_GROUP_FORBIDDEN, RequestCode.SET_MESSAGE_REQUEST_MODE,
        RequestCode.UPDATE_AND_CREATE_STATIC_TOPIC, RequestCode.ADD_BROKER, RequestCode.REMOVE_BROKER,
        RequestCode.RESET_MASTER_FLUSH_OFFSET, RequestCode.UPDATE_CONTROLLER_CONFIG, RequestCode.CLEAN_BROKER_DATA,
        RequestCode.UPDATE_COLD_DATA_FLOW_CTR_CONFIG, RequestCode.REMOVE_COLD_DATA_FLOW_CTR_CONFIG,
        RequestCode.SET_COMMITLOG_READ_MODE, PROMOTE_TO_MASTER);

    /** ACL 2.0's user and ACL codes, AUTH_CREATE_USER (3001) to AUTH_LIST_ACL (3010). */
    static final int FIRST_AUTH_CODE = 3001;
    static final int LAST_AUTH_CODE = 3010;

    private AdminCodes() {
    }

    /** Whether {@code code} needs an admin account or a Super user. */
    public static boolean isAdmin(int code) {
        return CODES.contains(code) || code >= FIRST_AUTH_CODE && code <= LAST_AUTH_CODE;
    }
}
