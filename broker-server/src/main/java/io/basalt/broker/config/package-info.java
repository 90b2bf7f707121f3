/**
 * Reads {@code broker.conf} (RocketMQ's property names and defaults) and the command line once, at
 * start-up, into immutable validated objects: {@link io.basalt.broker.config.BrokerConfig},
 * {@link io.basalt.broker.config.StoreSettings} and {@link io.basalt.broker.config.HaSettings}.
 *
 * <p>Every key Basalt implements is one line of {@code ConfigKeys}: name, type, default, allowed
 * values and a description. The same table validates the file, prints the effective configuration
 * and checks that {@code conf/broker.conf} documents what it sets. A key only RocketMQ knows is
 * accepted with one WARN; a key nobody knows, or a bad value, stops start-up with every problem
 * listed at once ({@link io.basalt.broker.config.ConfigException}).
 *
 * <p>Entry points: {@link io.basalt.broker.config.BrokerConfiguration#load} and
 * {@link io.basalt.broker.config.BrokerCommandLine#parse}.
 */
package io.basalt.broker.config;
