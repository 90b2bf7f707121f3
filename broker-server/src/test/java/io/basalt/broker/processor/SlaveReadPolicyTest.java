package io.basalt.broker.processor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.broker.subscription.SubscriptionGroupConfig;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.GetMessageStatus;
import org.junit.jupiter.api.Test;

/** RocketMQ 5.2.0's suggestWhichBrokerId rules, on a master and on a slave. */
class SlaveReadPolicyTest {
    /** brokerId 0, whichBrokerWhenConsumeSlowly 1: RocketMQ's defaults. */
    private static final SubscriptionGroupConfig GROUP = SubscriptionGroupConfig.defaults("cg");
    /** A group that reads from slave 2 when slow and from slave 3 otherwise. */
    private static final SubscriptionGroupConfig SLAVE_GROUP = new SubscriptionGroupConfig("sg", true, true, true, false,
        1, 16, SubscriptionGroupConfig.DEFAULT_GROUP_RETRY_POLICY, 3, 2, true, 0, 15, java.util.Set.of(), java.util.Map.of());

    private static SlaveReadPolicy slave(boolean slaveReadEnable, boolean offsetCheckInSlave, boolean masterStreaming) {
        return new SlaveReadPolicy(slaveReadEnable, offsetCheckInSlave, () -> true, () -> masterStreaming, id -> false);
    }

    @Test
    void aMasterWithoutSlaveReadEnableAlwaysKeepsTheConsumer() {
        SlaveReadPolicy master = SlaveReadPolicy.master(false, id -> true);
        assertFalse(master.rejectsPulls());
        SlaveReadPolicy.Decision cold = master.decide(GROUP, true, GetMessageStatus.FOUND, ResponseCode.SUCCESS);
        assertEquals(new SlaveReadPolicy.Decision(0, ResponseCode.SUCCESS, false), cold);
    }

    @Test
    void aMasterWithSlaveReadEnableFollowsTheGroupWhileThatSlaveIsInSync() {
        SlaveReadPolicy master = SlaveReadPolicy.master(true, id -> id == 1 || id == 2 || id == 3);
        assertEquals(1, master.decide(GROUP, true, GetMessageStatus.FOUND, ResponseCode.SUCCESS).suggestWhichBrokerId());
        assertEquals(0, master.decide(GROUP, false, GetMessageStatus.FOUND, ResponseCode.SUCCESS).suggestWhichBrokerId());
        assertEquals(2, master.decide(SLAVE_GROUP, true, GetMessageStatus.FOUND, ResponseCode.SUCCESS).suggestWhichBrokerId());
        assertEquals(3, master.decide(SLAVE_GROUP, false, GetMessageStatus.FOUND, ResponseCode.SUCCESS).suggestWhichBrokerId());
        SlaveReadPolicy noSlaveInSync = SlaveReadPolicy.master(true, id -> false);
        assertEquals(0, noSlaveInSync.decide(GROUP, true, GetMessageStatus.FOUND, ResponseCode.SUCCESS).suggestWhichBrokerId(),
            "a slave that lags or is gone does not have the data");
    }

    @Test
    void aSlaveWithoutSlaveReadEnableRejectsPulls() {
        assertTrue(slave(false, false, true).rejectsPulls());
        assertFalse(slave(true, false, true).rejectsPulls());
    }

    @Test
    void aSlaveSendsReadsThatAreNotColdBackToAStreamingMaster() {
        SlaveReadPolicy slave = slave(true, false, true);
        assertEquals(new SlaveReadPolicy.Decision(0, ResponseCode.SUCCESS, false),
            slave.decide(GROUP, false, GetMessageStatus.FOUND, ResponseCode.SUCCESS));
        assertEquals(new SlaveReadPolicy.Decision(0, ResponseCode.PULL_RETRY_IMMEDIATELY, true),
            slave.decide(GROUP, false, GetMessageStatus.OFFSET_OVERFLOW_ONE, ResponseCode.PULL_NOT_FOUND),
            "caught up: ask the master now instead of long-polling here");
        assertEquals(new SlaveReadPolicy.Decision(1, ResponseCode.SUCCESS, false),
            slave.decide(GROUP, true, GetMessageStatus.FOUND, ResponseCode.SUCCESS), "a cold read stays on the slave");
        SlaveReadPolicy masterDown = slave(true, false, false);
        assertEquals(new SlaveReadPolicy.Decision(0, ResponseCode.PULL_NOT_FOUND, true),
            masterDown.decide(GROUP, false, GetMessageStatus.OFFSET_OVERFLOW_ONE, ResponseCode.PULL_NOT_FOUND),
            "no master to send the consumer to: it long-polls here");
    }

    @Test
    void anIllegalOffsetOnASlaveIsLeftToTheMasterUnlessOffsetCheckInSlave() {
        assertEquals(new SlaveReadPolicy.Decision(0, ResponseCode.PULL_RETRY_IMMEDIATELY, true),
            slave(true, false, false).decide(GROUP, true, GetMessageStatus.OFFSET_TOO_SMALL, ResponseCode.PULL_OFFSET_MOVED));
        assertEquals(new SlaveReadPolicy.Decision(3, ResponseCode.PULL_RETRY_IMMEDIATELY, true),
            slave(true, false, false).decide(SLAVE_GROUP, true, GetMessageStatus.OFFSET_TOO_SMALL,
                ResponseCode.PULL_OFFSET_MOVED), "the group's brokerId");
        assertEquals(new SlaveReadPolicy.Decision(1, ResponseCode.PULL_OFFSET_MOVED, false),
            slave(true, true, false).decide(GROUP, true, GetMessageStatus.OFFSET_TOO_SMALL, ResponseCode.PULL_OFFSET_MOVED));
    }
}
