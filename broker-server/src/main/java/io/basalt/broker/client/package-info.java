/**
 * Clients known from heartbeats: consumer groups with their members, subscriptions and connections
 * ({@link io.basalt.broker.client.ClientManager}, which notifies a group when its membership changes),
 * producer groups, and the queue locks of orderly consumers ({@link io.basalt.broker.client.QueueLockManager}).
 */
package io.basalt.broker.client;
