package io.basalt.tools.bench.transaction;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every call of {@code checkLocalTransaction}, by transaction id, with its time: how many checks each half message
 * got and how close two checks of the same transaction came. A broker that checks each pending transaction at most
 * once per {@code transactionCheckInterval} shows no gap much shorter than the interval. Thread-safe.
 */
final class CheckLog {
    private final Map<String, List<Long>> checks = new ConcurrentHashMap<>();

    void record(String transactionId, long nowMs) {
        List<Long> times = checks.computeIfAbsent(transactionId, id -> new ArrayList<>(2));
        synchronized (times) {
            times.add(nowMs);
        }
    }

    /** Transactions checked at least once. */
    int checked() {
        return checks.size();
    }

    boolean wasChecked(String transactionId) {
        return checks.containsKey(transactionId);
    }

    /** The figures over all transactions; {@code intervalMs} is the broker's check interval. */
    Summary summary(long intervalMs) {
        long total = 0;
        int max = 0;
        int more = 0;
        long minGap = Long.MAX_VALUE;
        long tooClose = 0;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        long lastFirst = Long.MIN_VALUE;
        for (List<Long> times : checks.values()) {
            List<Long> sorted;
            synchronized (times) {
                sorted = new ArrayList<>(times);
            }
            sorted.sort(null);
            total += sorted.size();
            max = Math.max(max, sorted.size());
            if (sorted.size() > 1) {
                more++;
            }
            first = Math.min(first, sorted.get(0));
            last = Math.max(last, sorted.get(sorted.size() - 1));
            lastFirst = Math.max(lastFirst, sorted.get(0));
            for (int i = 1; i < sorted.size(); i++) {
                long gap = sorted.get(i) - sorted.get(i - 1);
                minGap = Math.min(minGap, gap);
                // a tenth of the interval of slack for the broker's own scheduling and the client's queue
                if (gap < intervalMs * 9 / 10) {
                    tooClose++;
                }
            }
        }
        return new Summary(checks.size(), total, max, more, minGap == Long.MAX_VALUE ? -1 : minGap, tooClose,
            first == Long.MAX_VALUE ? -1 : first, last == Long.MIN_VALUE ? -1 : last,
            lastFirst == Long.MIN_VALUE ? -1 : lastFirst);
    }

    /**
     * @param transactions  checked at least once
     * @param checks        calls in all
     * @param maxPerTx      most calls for one transaction
     * @param checkedTwice  transactions checked more than once
     * @param minGapMs      shortest time between two checks of one transaction (-1: none was checked twice)
     * @param tooClose      pairs of checks of one transaction less than 0.9 × the interval apart: a check storm
     * @param firstMs       first check (epoch ms, -1: none)
     * @param lastMs        last check
     * @param lastFirstMs   when the last transaction to be checked got its first check
     */
    record Summary(int transactions, long checks, int maxPerTx, int checkedTwice, long minGapMs, long tooClose,
                   long firstMs, long lastMs, long lastFirstMs) {
        String line() {
            return String.format(Locale.ROOT,
                "checked_tx=%d checks=%d max_checks_per_tx=%d tx_checked_twice=%d min_gap_ms=%d checks_closer_than_interval=%d",
                transactions, checks, maxPerTx, checkedTwice, minGapMs, tooClose);
        }
    }
}
