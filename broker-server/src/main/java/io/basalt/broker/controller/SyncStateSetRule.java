package io.basalt.broker.controller;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;

import io.basalt.ha.SlaveStatus;

/**
 * The master's rule for its SyncStateSet, RocketMQ 5.2.0's ({@code AutoSwitchHAService}): a connected slave
 * <b>joins</b> once its acknowledged offset reaches the confirm offset (the least acknowledged offset of the set's
 * connected members, the master counting with its CommitLog end) and the start of the current epoch; a member
 * <b>leaves</b> when its connection is gone or it has not been caught up (acknowledged everything the master had)
 * for {@code maxTimeNotCatchupMs}. The master itself always stays. Input is what the HA service knows of each
 * slave ({@link SlaveStatus}).
 *
 * <p>Remembers when each slave was last caught up; one master (its role manager thread) uses an instance.
 */
public final class SyncStateSetRule {
    /** RocketMQ's {@code haMaxTimeSlaveNotCatchup} default. */
    public static final long DEFAULT_MAX_TIME_NOT_CATCHUP_MS = 15_000;

    private final long maxTimeNotCatchupMs;
    private final LongSupplier clock;
    private final Map<Long, Long> lastCaughtUp = new HashMap<>();

    public SyncStateSetRule(long maxTimeNotCatchupMs, LongSupplier clock) {
        this.maxTimeNotCatchupMs = maxTimeNotCatchupMs;
        this.clock = clock;
    }

    /**
     * The set the master should have now.
     *
     * @param masterId         the master's controller id
     * @param current          the SyncStateSet in force
     * @param masterMaxOffset  the master's CommitLog end
     * @param epochStartOffset where the master's current epoch starts
     * @param slaves           the slaves streaming from the master, with their controller ids
     */
    public Set<Long> next(long masterId, Set<Long> current, long masterMaxOffset, long epochStartOffset,
                          List<SlaveStatus> slaves) {
        long now = clock.getAsLong();
        Map<Long, SlaveStatus> byId = new HashMap<>();
        for (SlaveStatus s : slaves) {
            if (s.brokerId() > 0 && s.brokerId() != masterId) {
                byId.merge(s.brokerId(), s, (a, b) -> a.ackOffset() >= b.ackOffset() ? a : b);
            }
        }
        lastCaughtUp.keySet().retainAll(byId.keySet());
        for (SlaveStatus s : byId.values()) {
            if (s.ackOffset() >= masterMaxOffset) {
                lastCaughtUp.put(s.brokerId(), now);
            } else {
                lastCaughtUp.putIfAbsent(s.brokerId(), now);
            }
        }
        Set<Long> next = new TreeSet<>();
        next.add(masterId);
        long confirm = masterMaxOffset;
        for (long id : current) {
            SlaveStatus s = byId.get(id);
            if (s == null || id == masterId) {
                continue;
            }
            if (now - lastCaughtUp.get(id) <= maxTimeNotCatchupMs) {
                next.add(id);
                confirm = Math.min(confirm, s.ackOffset());
            }
        }
        for (SlaveStatus s : byId.values()) {
            if (!next.contains(s.brokerId()) && s.ackOffset() >= confirm && s.ackOffset() >= epochStartOffset) {
                next.add(s.brokerId());
            }
        }
        return next;
    }
}
