/**
 * Controller mode: the broker as a member of a RocketMQ 5 Controller deployment (RIP-44). The
 * Controller, a Raft-replicated RocketMQ service, elects each broker set's master, keeps its
 * SyncStateSet and epochs, and tells brokers their role; Basalt implements none of that, it follows
 * the Controller's decisions. {@link io.basalt.broker.controller.ControllerApi} is the broker's side
 * of the Controller's remoting requests (codes 1001–1013, 904, 1008).
 */
package io.basalt.broker.controller;
