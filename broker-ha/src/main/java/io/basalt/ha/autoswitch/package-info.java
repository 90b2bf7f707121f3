/**
 * RocketMQ 5's AutoSwitch replication (controller mode): the wire ({@link io.basalt.ha.autoswitch.AutoSwitchWire}),
 * the slave's client ({@link io.basalt.ha.autoswitch.AutoSwitchClient}) and the master's SyncStateSet
 * ({@link io.basalt.ha.autoswitch.SyncStateSetTracker}). The master's side of the wire, its confirmOffset and
 * the controller-mode write path live with the other master connections, behind
 * {@link io.basalt.ha.master.HAService#controllerMode}.
 */
package io.basalt.ha.autoswitch;
