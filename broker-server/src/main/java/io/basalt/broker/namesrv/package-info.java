/**
 * Joining an Apache RocketMQ cluster: {@link io.basalt.broker.namesrv.NameServerRegistrar} registers the
 * broker and its topics with every NameServer of {@code namesrvAddr} (REGISTER_BROKER, every
 * {@code registerNameServerPeriod} ms and at once after a topic change) and unregisters it on shutdown
 * (UNREGISTER_BROKER), with the headers and body RocketMQ 5.2.0's broker sends.
 * {@link io.basalt.broker.namesrv.NameServerPresence} decides when the broker is registered and as what
 * through its replication role's changes: fenced at start when the NameServers route its name to another
 * master, registered again as master after a promotion, gone when fenced.
 */
package io.basalt.broker.namesrv;
