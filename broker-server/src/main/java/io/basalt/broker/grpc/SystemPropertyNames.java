package io.basalt.broker.grpc;

import java.util.Set;

/**
 * The property names RocketMQ 5.2.0 reserves for itself ({@code MessageConst}'s system names): a 5.x client may not
 * send one as a user property, and a stored message's properties of these names are not user properties.
 */
final class SystemPropertyNames {
    static final Set<String> NAMES = Set.of("KEYS", "TAGS", "WAIT", "DELAY", "RETRY_TOPIC", "REAL_TOPIC", "REAL_QID",
        "TRAN_MSG", "PGROUP", "MIN_OFFSET", "MAX_OFFSET", "BUYER_ID", "ORIGIN_MESSAGE_ID", "TRANSFER_FLAG",
        "CORRECTION_FLAG", "MQ2_FLAG", "RECONSUME_TIME", "MSG_REGION", "TRACE_ON", "UNIQ_KEY", "EXTEND_UNIQ_INFO",
        "MAX_RECONSUME_TIMES", "CONSUME_START_TIME", "INNER_NUM", "INNER_BASE", "CHECK_IMMUNITY_TIME_IN_SECONDS",
        "TRAN_PREPARED_QUEUE_OFFSET", "__transactionId__", "TRANSACTION_CHECK_TIMES", "INSTANCE_ID", "CORRELATION_ID",
        "REPLY_TO_CLIENT", "TTL", "ARRIVE_TIME", "PUSH_REPLY_TIME", "CLUSTER", "MSG_TYPE", "POP_CK", "POP_CK_OFFSET",
        "1ST_POP_TIME", "__SHARDINGKEY", "PROPERTY_FORWARD_QUEUE_ID", "REDIRECT", "INNER_MULTI_DISPATCH",
        "INNER_MULTI_QUEUE_OFFSET", "TRACE_CONTEXT", "TIMER_DELAY_SEC", "TIMER_DELIVER_MS", "__BORNHOST",
        "BORN_TIMESTAMP", "__RMQ.TRANSIENT.", "__RMQ.TRANSIENT.TOPIC_SYS_FLAG", "__RMQ.TRANSIENT.GROUP_SYS_FLAG",
        "TIMER_ENQUEUE_MS", "TIMER_DEQUEUE_MS", "TIMER_ROLL_TIMES", "TIMER_OUT_MS", "TIMER_DEL_UNIQKEY",
        "TIMER_DELAY_LEVEL", "TIMER_DELAY_MS", "__CRC32#", "DLQ_ORIGIN_TOPIC", "DLQ_ORIGIN_MESSAGE_ID");

    private SystemPropertyNames() {
    }
}
