package io.basalt.ha;

/**
 * One slave as its master sees it (runtime info, logs).
 *
 * @param address   the slave's remote address (HA connection)
 * @param brokerId  the slave's brokerId, from its HELLO
 * @param brokerAddr the slave's remoting address (host:port), from its HELLO
 * @param ackOffset the highest CommitLog offset the slave acknowledged
 * @param lagBytes  master max offset minus {@code ackOffset}
 * @param lagMs     how long the slave has been behind (0 when caught up)
 */
public record SlaveStatus(String address, long brokerId, String brokerAddr, long ackOffset, long lagBytes, long lagMs) {
}
