package io.basalt.ha.autoswitch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/** RocketMQ's SyncStateSet rules on a clock the test moves. */
class SyncStateSetTrackerTest {
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final SyncStateSetTracker set = new SyncStateSetTracker(1, 15_000, now::get);
    private final List<Set<Long>> proposals = new ArrayList<>();

    SyncStateSetTrackerTest() {
        set.onProposal(proposals::add);
    }

    @Test
    void joinsOnlyWhenCaughtUpToTheConfirmOffsetAndTheCurrentEpoch() {
        set.onAck(2, 900, false, false, 500, 0);
        assertTrue(proposals.isEmpty(), "not caught up");
        set.onAck(2, 400, true, false, 500, 0);
        assertTrue(proposals.isEmpty(), "below the confirmOffset");
        set.onAck(2, 600, true, false, 500, 700);
        assertTrue(proposals.isEmpty(), "no data of the current epoch yet");
        set.onAck(2, 800, true, false, 500, 700);
        assertEquals(List.of(Set.of(1L, 2L)), proposals);
        assertEquals(Set.of(1L, 2L), set.effective());
        assertEquals(Set.of(1L), set.adopted());
    }

    @Test
    void asyncLearnerNeverJoins() {
        set.onAck(3, 800, true, true, 0, 0);
        assertTrue(proposals.isEmpty());
        assertEquals(Set.of(1L), set.effective());
    }

    @Test
    void leavesAfterHaMaxTimeSlaveNotCatchup() {
        set.adopt(Set.of(1L, 2L));
        set.onAck(2, 800, true, false, 0, 0);
        now.addAndGet(15_000);
        assertNull(set.shrink(List.of(2L)), "exactly haMaxTimeSlaveNotCatchup is still in time");
        now.addAndGet(1);
        assertEquals(Set.of(1L), set.shrink(List.of(2L)));
        assertEquals(Set.of(1L, 2L), set.effective(), "the union of the adopted and the proposed set until adopted");
        set.adopt(Set.of(1L));
        assertEquals(Set.of(1L), set.effective());
    }

    @Test
    void memberWithoutAConnectionLeaves() {
        set.adopt(Set.of(1L, 2L, 3L));
        set.onAck(2, 800, true, false, 0, 0);
        set.onAck(3, 800, true, false, 0, 0);
        set.onDisconnect(3);
        assertEquals(List.of(Set.of(1L, 2L)), proposals);
        assertEquals(Set.of(1L), set.shrink(List.of()), "a member no connection serves leaves at the periodic check");
    }

    @Test
    void abandonedProposalLeavesTheAdoptedSetInForce() {
        set.onAck(2, 800, true, false, 0, 0);
        set.abandonProposal();
        assertEquals(Set.of(1L), set.effective());
        assertNull(set.proposed());
    }
}
