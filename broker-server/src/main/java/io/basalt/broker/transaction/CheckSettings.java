package io.basalt.broker.transaction;

/**
 * The back-check's settings, RocketMQ's keys and defaults.
 *
 * @param transactionTimeOutMs     youngest age a half message is checked at (6000)
 * @param transactionCheckIntervalMs time between scans (30000)
 * @param transactionCheckMax      checks sent before a half message is given up (15)
 * @param fileReservedTimeHours    the store's retention: a half message older than this is given up (72)
 */
public record CheckSettings(long transactionTimeOutMs, long transactionCheckIntervalMs, int transactionCheckMax,
                            int fileReservedTimeHours) {
    public CheckSettings {
        if (transactionTimeOutMs < 0 || transactionCheckIntervalMs <= 0 || transactionCheckMax < 1
            || fileReservedTimeHours <= 0) {
            throw new IllegalArgumentException("invalid back-check settings: " + transactionTimeOutMs + " ms timeout, "
                + transactionCheckIntervalMs + " ms interval, " + transactionCheckMax + " checks, "
                + fileReservedTimeHours + " h retention");
        }
    }

    long fileReservedTimeMs() {
        return fileReservedTimeHours * 3_600_000L;
    }
}
