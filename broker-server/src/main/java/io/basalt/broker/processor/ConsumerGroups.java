package io.basalt.broker.processor;

import java.util.Objects;

import io.basalt.broker.client.ClientManager;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.subscription.SubscriptionGroupManager;

/**
 * What the broker knows of its consumer groups, as a pull consults it: each group's recorded config (does it
 * exist, may it consume, which topics it is forbidden), its connected clients' subscriptions, and its
 * committed offsets.
 */
public record ConsumerGroups(SubscriptionGroupManager subscriptionGroups, ClientManager clients,
                             ConsumerOffsetManager offsets) {
    public ConsumerGroups {
        Objects.requireNonNull(subscriptionGroups, "subscriptionGroups");
        Objects.requireNonNull(clients, "clients");
        Objects.requireNonNull(offsets, "offsets");
    }
}
