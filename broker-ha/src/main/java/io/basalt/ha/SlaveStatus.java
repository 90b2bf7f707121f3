package io.basalt.ha;

/**
 * One slave as its master sees it (runtime info, logs).
 *
 * @param address   the slave's remote address
 * @param ackOffset the highest CommitLog offset the slave acknowledged
 * @param lagBytes  master max offset minus {@code ackOffset}
 * @param lagMs     how long the slave has been behind (0 when caught up)
 */
public record SlaveStatus(String address, long ackOffset, long lagBytes, long lagMs) {
}
