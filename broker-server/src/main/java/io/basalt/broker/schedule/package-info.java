/**
 * Delay levels (RocketMQ's {@code ScheduleMessageService}): the put transform that parks a message with a
 * {@code DELAY} property in {@code SCHEDULE_TOPIC_XXXX} ({@link io.basalt.broker.schedule.DelayLevelTransform}),
 * the service that puts each one back into its real topic when due
 * ({@link io.basalt.broker.schedule.ScheduleMessageService}), and its progress file
 * {@code config/delayOffset.json} ({@link io.basalt.broker.schedule.DelayOffsetTable},
 * {@link io.basalt.broker.schedule.DelayOffsetFile}).
 */
package io.basalt.broker.schedule;
