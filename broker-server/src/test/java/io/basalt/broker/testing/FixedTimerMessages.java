package io.basalt.broker.testing;

import java.util.ArrayList;
import java.util.List;

import io.basalt.store.PutMessageTransform;
import io.basalt.store.TimerMessages;

/**
 * A timer wheel whose answers a test sets: stats, checkpoint and metrics as given, and what the broker told it
 * (dequeue switch, applied master checkpoints). Thread-safe enough for tests: volatile fields, a synchronized list.
 */
public final class FixedTimerMessages implements TimerMessages {
    public volatile boolean enabled = true;
    public volatile boolean dequeueEnabled;
    public volatile Stats stats = Stats.NONE;
    public volatile byte[] checkpoint = new byte[56];
    public volatile String metricsJson = "{\"timingCount\":{}}";
    public final List<byte[]> appliedCheckpoints = java.util.Collections.synchronizedList(new ArrayList<>());
    public volatile DeliveryListener listener;

    @Override
    public boolean enabled() {
        return enabled;
    }

    @Override
    public PutMessageTransform putTransform() {
        return PutMessageTransform.Decision::append;
    }

    @Override
    public void setDequeueEnabled(boolean enabled) {
        this.dequeueEnabled = enabled;
    }

    @Override
    public boolean dequeueEnabled() {
        return dequeueEnabled;
    }

    @Override
    public byte[] checkpoint() {
        return checkpoint;
    }

    @Override
    public void applyMasterCheckpoint(byte[] body) {
        appliedCheckpoints.add(body.clone());
    }

    @Override
    public String metricsJson() {
        return metricsJson;
    }

    @Override
    public Stats stats() {
        return stats;
    }

    @Override
    public void setDeliveryListener(DeliveryListener listener) {
        this.listener = listener;
    }
}
