package io.basalt.broker.processor;

import java.util.function.BooleanSupplier;
import java.util.function.LongPredicate;

import io.basalt.broker.subscription.SubscriptionGroupConfig;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.GetMessageStatus;

/**
 * Which broker of the group a consumer should read from next, RocketMQ 5.2.0's rules of {@code PullMessageProcessor}
 * ({@code slaveReadEnable}, the group's {@code brokerId} and {@code whichBrokerWhenConsumeSlowly}):
 * <ul>
 *   <li>a slave with {@code slaveReadEnable=false} {@linkplain #rejectsPulls() rejects every pull} (SYSTEM_BUSY);</li>
 *   <li>with {@code slaveReadEnable}, a "cold" read (the store's {@code suggestPullingFromSlave}: more than
 *   {@code accessMessageInMemoryMaxRatio} % of memory behind the CommitLog end) is pointed at
 *   {@code whichBrokerWhenConsumeSlowly}, any other at the group's {@code brokerId}; without it, at the master (0).
 *   Basalt's one addition: a master names a slave only while that slave is in sync (less than
 *   {@code haMaxGapNotInSync} behind); one that lags or is gone does not have the data, and would send the
 *   consumer back;</li>
 *   <li>on a slave, a read that is not cold goes back to the master (0) while the master streams to it (RocketMQ's
 *   {@code minBrokerIdInGroup == 0}), and a result other than FOUND becomes PULL_RETRY_IMMEDIATELY, so the consumer
 *   asks the master at once instead of long-polling here;</li>
 *   <li>PULL_OFFSET_MOVED on a slave without {@code offsetCheckInSlave} becomes PULL_RETRY_IMMEDIATELY with the
 *   group's {@code brokerId}, and a slave without {@code offsetCheckInSlave} never corrects the consumer's offset
 *   (the request offset is sent back): only the master moves it.</li>
 * </ul>
 * Immutable settings, live role; any thread.
 */
public final class SlaveReadPolicy {
    static final long MASTER_ID = 0;

    /** Changed at runtime by UPDATE_BROKER_CONFIG; read on every pull. */
    private volatile boolean slaveReadEnable;
    private final boolean offsetCheckInSlave;
    private final BooleanSupplier isSlave;
    private final BooleanSupplier masterStreaming;
    private final LongPredicate slaveInSync;

    /**
     * @param isSlave         true while this broker is a slave (false once promoted)
     * @param masterStreaming on a slave: true while its master streams to it
     * @param slaveInSync     on a master: whether the slave of that brokerId is in sync
     */
    public SlaveReadPolicy(boolean slaveReadEnable, boolean offsetCheckInSlave, BooleanSupplier isSlave,
                           BooleanSupplier masterStreaming, LongPredicate slaveInSync) {
        this.slaveReadEnable = slaveReadEnable;
        this.offsetCheckInSlave = offsetCheckInSlave;
        this.isSlave = isSlave;
        this.masterStreaming = masterStreaming;
        this.slaveInSync = slaveInSync;
    }

    /** The policy of a broker that is always a master and suggests the slaves in sync when reads are cold. */
    public static SlaveReadPolicy master(boolean slaveReadEnable, LongPredicate slaveInSync) {
        return new SlaveReadPolicy(slaveReadEnable, false, () -> false, () -> false, slaveInSync);
    }

    /** Whether consumers may read from slaves from now on (UPDATE_BROKER_CONFIG). */
    public void setSlaveReadEnable(boolean enable) {
        slaveReadEnable = enable;
    }

    /** RocketMQ's {@code rejectRequest()}: a slave serves pulls only with {@code slaveReadEnable}. */
    public boolean rejectsPulls() {
        return !slaveReadEnable && isSlave.getAsBoolean();
    }

    /**
     * The decision for one pull answer.
     *
     * @param suggestWhichBrokerId the brokerId the consumer should pull from next
     * @param code                 the response code to send (the mapped one, or PULL_RETRY_IMMEDIATELY)
     * @param keepRequestOffset    true when nextBeginOffset must be the request's offset (a slave does not correct it)
     */
    public record Decision(long suggestWhichBrokerId, int code, boolean keepRequestOffset) {
    }

    /**
     * @param group  the consumer group's settings
     * @param cold   the store's {@code suggestPullingFromSlave}
     * @param status the store's status of the read
     * @param code   the response code that status maps to
     */
    public Decision decide(SubscriptionGroupConfig group, boolean cold, GetMessageStatus status, int code) {
        long suggest = MASTER_ID;
        if (slaveReadEnable) {
            suggest = cold ? group.whichBrokerWhenConsumeSlowly() : group.brokerId();
        }
        boolean slave = isSlave.getAsBoolean();
        if (!slave) {
            if (suggest != MASTER_ID && !slaveInSync.test(suggest)) {
                suggest = MASTER_ID;
            }
            return new Decision(suggest, code, false);
        }
        boolean keepRequestOffset = !offsetCheckInSlave && corrects(status);
        if (!cold && masterStreaming.getAsBoolean()) {
            return new Decision(MASTER_ID, code == ResponseCode.SUCCESS ? code : ResponseCode.PULL_RETRY_IMMEDIATELY,
                keepRequestOffset);
        }
        if (code == ResponseCode.PULL_OFFSET_MOVED && !offsetCheckInSlave) {
            return new Decision(group.brokerId(), ResponseCode.PULL_RETRY_IMMEDIATELY, true);
        }
        return new Decision(suggest, code, keepRequestOffset);
    }

    /** The statuses for which RocketMQ's store corrects the next offset (its {@code nextOffsetCorrection}). */
    private static boolean corrects(GetMessageStatus status) {
        return switch (status) {
            case NO_MESSAGE_IN_QUEUE, NO_MATCHED_LOGIC_QUEUE, OFFSET_TOO_SMALL, OFFSET_OVERFLOW_BADLY,
                OFFSET_OVERFLOW_ONE, OFFSET_FOUND_NULL -> true;
            default -> false;
        };
    }
}
