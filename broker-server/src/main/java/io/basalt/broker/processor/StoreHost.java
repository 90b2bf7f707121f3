package io.basalt.broker.processor;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * This broker as the messages it stores name it: the store host of every record (brokerIP1:listenPort, so
 * that offset message ids point back here) and the CLUSTER property a send adds. Immutable.
 *
 * @param brokerName named in a refusal, so that an operator sees which broker refused
 */
public record StoreHost(String clusterName, String brokerName, InetSocketAddress address) {
    public StoreHost {
        Objects.requireNonNull(clusterName, "clusterName");
        Objects.requireNonNull(brokerName, "brokerName");
        Objects.requireNonNull(address, "address");
    }
}
