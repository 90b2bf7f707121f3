package io.basalt.broker.schedule;

/**
 * The schedule service's settings from {@code broker.conf}.
 *
 * @param flushDelayOffsetInterval      period of the unconditional rewrite of delayOffset.json, ms (a change is
 *                                      written within {@link ScheduleMessageService#PERSIST_DELAY_MS} anyway)
 * @param delayOffsetUpdateVersionStep  offset updates per dataVersion step
 * @param maxPendingPerLevel            puts in flight per level ({@code scheduleAsyncDeliverMaxPendingLimit})
 */
public record ScheduleSettings(long flushDelayOffsetInterval, int delayOffsetUpdateVersionStep, int maxPendingPerLevel) {

    /** RocketMQ 5.2.0's defaults: 10 s, 200, 2000. */
    public static ScheduleSettings defaults() {
        return new ScheduleSettings(10_000, 200, 2000);
    }
}
