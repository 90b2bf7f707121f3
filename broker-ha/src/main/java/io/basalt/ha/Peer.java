package io.basalt.ha;

/**
 * Who this broker is to its replication peers: its brokerId (0 for a master) and the remoting
 * address clients use (host:port). Exchanged in the HA handshake so route data can list the group.
 */
public record Peer(long brokerId, String brokerAddr) {
    public Peer {
        if (brokerAddr == null) {
            throw new IllegalArgumentException("brokerAddr must not be null");
        }
    }
}
