package io.basalt.ha;

/**
 * One slave as its master sees it (runtime info, logs).
 *
 * @param address   the slave's remote address (HA connection)
 * @param brokerId  the slave's brokerId, from its HELLO (-1 for a classic slave: its protocol does not tell)
 * @param brokerAddr the slave's remoting address (host:port), from its HELLO (empty for a classic slave)
 * @param ackOffset the highest CommitLog offset the slave acknowledged
 * @param lagBytes  master max offset minus {@code ackOffset}
 * @param lagMs     how long the slave has been behind (0 when caught up)
 * @param protocol  the replication protocol the slave speaks: {@code BASALT} or {@code CLASSIC} (RocketMQ's,
 *                  without epochs: no divergence check)
 */
public record SlaveStatus(String address, long brokerId, String brokerAddr, long ackOffset, long lagBytes, long lagMs,
                          String protocol) {
    /** A Basalt slave's status. */
    public SlaveStatus(String address, long brokerId, String brokerAddr, long ackOffset, long lagBytes, long lagMs) {
        this(address, brokerId, brokerAddr, ackOffset, lagBytes, lagMs, "BASALT");
    }
}
