/**
 * Master/slave replication of the CommitLog.
 *
 * <p>A master's {@link io.basalt.ha.master.HAService} streams its CommitLog to each slave's
 * {@link io.basalt.ha.slave.HAClient} over Netty (wire format: {@link io.basalt.ha.HAWire}, or RocketMQ's
 * classic protocol with a RocketMQ peer: the master tells them apart by a connection's first bytes,
 * the slave asks its master which one it speaks, see {@link io.basalt.ha.ReplicaProtocol}); a
 * SYNC_MASTER's puts wait for a slave's acknowledgement through the store's
 * {@link io.basalt.store.spi.ReplicaWait} hook. {@link io.basalt.ha.EpochFile} records the
 * master generations a log went through, so a returning replica cuts a divergent tail and a deposed
 * master is refused. {@link io.basalt.ha.Replication} runs the endpoint for a broker's role and
 * promotes a slave without a restart.
 */
package io.basalt.ha;
