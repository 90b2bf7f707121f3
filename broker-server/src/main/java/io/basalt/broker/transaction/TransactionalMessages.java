package io.basalt.broker.transaction;

/**
 * RocketMQ's names and values for transactional messages: the sysFlag transaction bits, the properties a half
 * message carries, the system topics, the scan group and the op marker tag ({@code MessageSysFlag},
 * {@code MessageConst}, {@code TransactionalMessageUtil}, {@code TopicValidator}).
 */
public final class TransactionalMessages {
    /** sysFlag bits 2..3. */
    public static final int TRANSACTION_TYPE_MASK = 0xC;
    public static final int TRANSACTION_NOT_TYPE = 0;
    public static final int TRANSACTION_PREPARED_TYPE = 0x4;
    public static final int TRANSACTION_COMMIT_TYPE = 0x8;
    public static final int TRANSACTION_ROLLBACK_TYPE = 0xC;

    /** END_TRANSACTION's {@code commitOrRollback} values: the transaction types, and 0 for "unknown". */
    public static final int END_UNKNOWN = TRANSACTION_NOT_TYPE;

    /** {@code "true"} on a half message request (and kept in the committed record). */
    public static final String PROPERTY_TRANSACTION_PREPARED = "TRAN_MSG";
    /** The producer group: checks go to it, END_TRANSACTION must name it. */
    public static final String PROPERTY_PRODUCER_GROUP = "PGROUP";
    /** The broker's copy of UNIQ_KEY in a half message. */
    public static final String PROPERTY_TRANSACTION_ID = "__transactionId__";
    public static final String PROPERTY_REAL_TOPIC = "REAL_TOPIC";
    public static final String PROPERTY_REAL_QUEUE_ID = "REAL_QID";
    /** Back-checks done so far (1-based), on each check copy. */
    public static final String PROPERTY_TRANSACTION_CHECK_TIMES = "TRANSACTION_CHECK_TIMES";
    /** User property: first-check delay and commit deadline, seconds. */
    public static final String PROPERTY_CHECK_IMMUNITY_TIME_IN_SECONDS = "CHECK_IMMUNITY_TIME_IN_SECONDS";
    /** On an immunity copy: the half-queue offset of the original half message. */
    public static final String PROPERTY_TRANSACTION_PREPARED_QUEUE_OFFSET = "TRAN_PREPARED_QUEUE_OFFSET";

    public static final String HALF_TOPIC = "RMQ_SYS_TRANS_HALF_TOPIC";
    public static final String OP_HALF_TOPIC = "RMQ_SYS_TRANS_OP_HALF_TOPIC";
    public static final String CHECK_MAX_TIME_TOPIC = "TRANS_CHECK_MAX_TIME_TOPIC";
    /** Every half message is in queue 0 of the half topic; its op markers in queue 0 of the op topic. */
    public static final int HALF_QUEUE_ID = 0;
    /** The group whose offsets in consumerOffset.json are the check scan's progress in the half and op topics. */
    public static final String SCAN_GROUP = "CID_RMQ_SYS_TRANS";
    /** TAGS of an op marker ({@code TransactionalMessageUtil.REMOVE_TAG}). */
    public static final String REMOVE_TAG = "d";

    private TransactionalMessages() {
    }

    /** The transaction bits of a sysFlag. */
    public static int transactionType(int sysFlag) {
        return sysFlag & TRANSACTION_TYPE_MASK;
    }

    /** {@code sysFlag} with its transaction bits replaced by {@code type}. */
    public static int withTransactionType(int sysFlag, int type) {
        return (sysFlag & ~TRANSACTION_TYPE_MASK) | type;
    }
}
