/**
 * RocketMQ's broker statistics as its admin codes report them: per-key counters ({@link io.basalt.broker.stats.StatsItem})
 * sampled into RocketMQ's minute, hour and day windows ({@link io.basalt.broker.stats.SampleRing}), kept by
 * RocketMQ's stats names and keys ({@link io.basalt.broker.stats.BrokerStats}, VIEW_BROKER_STATS_DATA); the table of
 * messages each consumer group got from each topic ({@link io.basalt.broker.stats.GroupGetStats}) also gives
 * GET_CONSUME_STATS the group's consume TPS.
 */
package io.basalt.broker.stats;
