package io.basalt.tools.bench.transaction;

import java.util.BitSet;

/**
 * What a consumer received, by the sequence number in the benchmark body: each sequence once (unique), the
 * repeats (duplicates), and when the last new one arrived. Thread-safe (the consumer's threads record).
 */
final class Deliveries {
    private final BitSet seen = new BitSet();
    private long unique;
    private long duplicates;
    private long lastNewMs;

    synchronized void record(long sequence, long nowMs) {
        int i = Math.toIntExact(sequence);
        if (seen.get(i)) {
            duplicates++;
            return;
        }
        seen.set(i);
        unique++;
        lastNewMs = nowMs;
    }

    synchronized long unique() {
        return unique;
    }

    synchronized long duplicates() {
        return duplicates;
    }

    synchronized long lastNewMs() {
        return lastNewMs;
    }

    synchronized boolean has(long sequence) {
        return seen.get(Math.toIntExact(sequence));
    }
}
