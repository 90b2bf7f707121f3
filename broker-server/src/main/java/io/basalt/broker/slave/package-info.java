/**
 * A slave's copy of its master's metadata (RocketMQ's {@code SlaveSynchronize}): replication copies only the
 * CommitLog, so topics, consumer offsets, subscription groups, delay offsets and message request modes are polled
 * from the master's remoting port by {@link io.basalt.broker.slave.SlaveSynchronize}, one job class per table.
 */
package io.basalt.broker.slave;
