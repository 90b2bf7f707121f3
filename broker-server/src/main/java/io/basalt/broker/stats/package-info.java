/**
 * RocketMQ's broker statistics as its admin codes report them: per-key counters sampled into RocketMQ's
 * 1-minute window ({@link io.basalt.broker.stats.StatsItem}) and the table of messages each consumer group got
 * from each topic ({@link io.basalt.broker.stats.GroupGetStats}, RocketMQ's {@code GROUP_GET_NUMS}), which
 * GET_CONSUME_STATS turns into the group's consume TPS.
 */
package io.basalt.broker.stats;
