/**
 * The client-facing request processors: send (with auto-creation and RocketMQ's status codes), pull and
 * lite pull (long polling, zero-copy bodies), client management, offsets, send-back to retry topics, and
 * the route answers that let a broker be its own NameServer. Each is given the few collaborators it uses
 * (the store, the topic table, a {@link io.basalt.broker.processor.StoreHost}, ...); {@code BrokerController}
 * builds them and registers them on executors.
 * The admin processors live in the {@code admin} subpackage.
 */
package io.basalt.broker.processor;
