package io.basalt.store;

import io.basalt.store.timer.TimerPutTransform;

/**
 * The timer wheel of a store with {@code timerWheelEnable=false}: no wheel files, nothing enqueued or
 * delivered, and a put transform that refuses timer messages with WHEEL_TIMER_NOT_ENABLE (as RocketMQ does)
 * and passes every other message on. Stateless.
 */
final class DisabledTimerMessages implements TimerMessages {
    static final DisabledTimerMessages INSTANCE = new DisabledTimerMessages();

    private static final PutMessageTransform REFUSE_TIMERS =
        new TimerPutTransform(false, 1000, 1, Integer.MAX_VALUE, null, System::currentTimeMillis);

    private DisabledTimerMessages() {
    }

    @Override
    public boolean enabled() {
        return false;
    }

    @Override
    public PutMessageTransform putTransform() {
        return REFUSE_TIMERS;
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
