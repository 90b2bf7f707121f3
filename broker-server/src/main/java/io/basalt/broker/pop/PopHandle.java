package io.basalt.broker.pop;

/**
 * The POP receipt: RocketMQ's {@code extraInfo} / message property {@code POP_CK} (8 space-separated fields) and
 * the gRPC receipt handle (the same with a 9th field, the message's CommitLog offset). A message is identified for
 * ACK and CHANGE_MESSAGE_INVISIBLETIME by (topic actually read, queueId, offset) and matched to its checkpoint by
 * {@code ckQueueOffset} + {@code popTime}. Immutable.
 *
 * @param ckQueueOffset   start offset of the checkpoint that covers the message (field 0)
 * @param popTime         broker clock when the message was popped, ms (field 1)
 * @param invisibleTime   ms from popTime during which the message is invisible (field 2)
 * @param reviveQid       revive queue of the checkpoint; {@link #ORDER_REVIVE_QID} for order POP (field 3)
 * @param retryFlag       {@link #NORMAL}, {@link #RETRY_V1} or {@link #RETRY_V2} (field 4)
 * @param brokerName      broker that served the pop (field 5)
 * @param queueId         queue of the topic actually read (field 6)
 * @param offset          queue offset of the message (field 7)
 * @param commitLogOffset the message's CommitLog offset (field 8, gRPC handles only), or -1 when absent
 */
public record PopHandle(long ckQueueOffset, long popTime, long invisibleTime, int reviveQid, int retryFlag,
                        String brokerName, int queueId, long offset, long commitLogOffset) {
    public static final int NORMAL = 0;
    public static final int RETRY_V1 = 1;
    public static final int RETRY_V2 = 2;
    public static final int ORDER_REVIVE_QID = 999;
    private static final String SEPARATOR = " ";

    /**
     * Parses 8 or 9 fields.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static PopHandle decode(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("extraInfo is empty");
        }
        String[] f = text.trim().split(SEPARATOR);
        if (f.length < 8) {
            throw new IllegalArgumentException("extraInfo [" + text + "] has " + f.length + " fields, at least 8 needed");
        }
        try {
            int retryFlag = Integer.parseInt(f[4]);
            if (retryFlag < NORMAL || retryFlag > RETRY_V2) {
                throw new IllegalArgumentException("extraInfo [" + text + "]: retry flag " + retryFlag + " is not 0, 1 or 2");
            }
            return new PopHandle(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]),
                Integer.parseInt(f[3]), retryFlag, f[5], Integer.parseInt(f[6]), Long.parseLong(f[7]),
                f.length > 8 ? Long.parseLong(f[8]) : -1);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("extraInfo [" + text + "] has a field that is not a number: " + e.getMessage());
        }
    }

    /** The remoting form: the 8 fields of {@code POP_CK} / {@code extraInfo}. */
    public String extraInfo() {
        return ckQueueOffset + SEPARATOR + popTime + SEPARATOR + invisibleTime + SEPARATOR + reviveQid + SEPARATOR
            + retryFlag + SEPARATOR + brokerName + SEPARATOR + queueId + SEPARATOR + offset;
    }

    /** The gRPC receipt handle: the 8 fields and, when known, the CommitLog offset. */
    public String encode() {
        return commitLogOffset < 0 ? extraInfo() : extraInfo() + SEPARATOR + commitLogOffset;
    }

    public PopHandle withCommitLogOffset(long commitLogOffset) {
        return new PopHandle(ckQueueOffset, popTime, invisibleTime, reviveQid, retryFlag, brokerName, queueId, offset,
            commitLogOffset);
    }

    /** Whether the invisible time has passed: the message may have been (or be about to be) re-delivered. */
    public boolean expired(long nowMillis) {
        return popTime + invisibleTime <= nowMillis;
    }

    public boolean isOrder() {
        return reviveQid == ORDER_REVIVE_QID;
    }

    /** The topic actually read for {@code topic} (the normal topic the client names) and {@code group}. */
    public String realTopic(String topic, String group) {
        return switch (retryFlag) {
            case RETRY_V1 -> PopRetryTopics.v1(group, topic);
            case RETRY_V2 -> PopRetryTopics.v2(group, topic);
            default -> topic;
        };
    }
}
