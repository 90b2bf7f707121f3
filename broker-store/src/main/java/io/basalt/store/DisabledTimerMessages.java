package io.basalt.store;

/**
 * The timer wheel of a store with {@code timerWheelEnable=false}: no wheel files, nothing enqueued or
 * delivered, and a put transform that passes every message on. Stateless.
 */
final class DisabledTimerMessages implements TimerMessages {
    static final DisabledTimerMessages INSTANCE = new DisabledTimerMessages();

    private DisabledTimerMessages() {
    }

    @Override
    public boolean enabled() {
        return false;
    }

    @Override
    public PutMessageTransform putTransform() {
        return PutMessageTransform.Decision::append;
    }

    @Override
    public void setDequeueEnabled(boolean enabled) {
    }

    @Override
    public boolean dequeueEnabled() {
        return false;
    }

    @Override
    public byte[] checkpoint() {
        return new byte[0];
    }

    @Override
    public void applyMasterCheckpoint(byte[] body) {
    }

    @Override
    public String metricsJson() {
        return null;
    }

    @Override
    public Stats stats() {
        return Stats.NONE;
    }

    @Override
    public void setDeliveryListener(DeliveryListener listener) {
    }
}
