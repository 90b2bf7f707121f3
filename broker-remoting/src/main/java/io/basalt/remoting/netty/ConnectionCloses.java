package io.basalt.remoting.netty;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** Connections the server closed, counted per {@link CloseReason}. Thread-safe. */
final class ConnectionCloses {
    private final Map<CloseReason, LongAdder> counts = new EnumMap<>(CloseReason.class);

    ConnectionCloses() {
        for (CloseReason reason : CloseReason.values()) {
            counts.put(reason, new LongAdder());
        }
    }

    void count(CloseReason reason) {
        counts.get(reason).increment();
    }

    long get(CloseReason reason) {
        return counts.get(reason).sum();
    }
}
