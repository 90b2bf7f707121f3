/**
 * Reads {@code broker.conf} (RocketMQ's property names and defaults) and the command line once, at
 * start-up, into immutable validated objects: {@link io.basalt.broker.config.BrokerConfig}, the
 * store's {@link io.basalt.store.StoreConfig} and replication's {@link io.basalt.ha.HAConfig}.
 *
 * <p>Every key Basalt implements is one line of a module's key table, next to the code that reads
 * it ({@code ConfigKeys} for the broker, {@link io.basalt.store.StoreKeys},
 * {@link io.basalt.ha.HAKeys}); {@code ConfigKeys.TABLE} composes them. The same table validates the
 * file, prints the effective configuration, and is checked against {@code conf/broker.conf} and the
 * README. A RocketMQ key Basalt does not implement is a tuning key (accepted with one WARN) or a
 * semantic key (accepted only at a value Basalt honours), per {@code RocketMqKeyPolicy}; a key nobody
 * knows, or a bad value, stops start-up with every problem listed at once
 * ({@link io.basalt.broker.config.ConfigException}).
 *
 * <p>Entry points: {@link io.basalt.broker.config.BrokerConfiguration#load} and
 * {@link io.basalt.broker.config.BrokerCommandLine#parse}.
 */
package io.basalt.broker.config;
