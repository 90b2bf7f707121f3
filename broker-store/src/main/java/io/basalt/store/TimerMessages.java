package io.basalt.store;

/**
 * The store's timer wheel (RocketMQ 5's {@code TimerMessageStore}) as the broker drives and reports it:
 * messages with {@code TIMER_DELIVER_MS} / {@code TIMER_DELAY_SEC} / {@code TIMER_DELAY_MS} wait in
 * {@code rmq_sys_wheel_timer}, the {@code timerwheel} and {@code timerlog/} files, and are put back into
 * their real topic when due. Every node enqueues (a slave builds its own wheel from the replicated
 * log); only the master delivers ({@link #setDequeueEnabled}).
 *
 * <p>Thread-safe: request threads read checkpoint, metrics and stats; the broker's role changes call
 * {@link #setDequeueEnabled}.
 */
public interface TimerMessages {

    /** Whether {@code timerWheelEnable} is on: with it off, a timer message is refused by {@link #putTransform()}. */
    boolean enabled();

    /**
     * The send-time step of timer messages (RocketMQ's {@code HookUtils.handleScheduleMessage}, timer part):
     * computes and rounds the deliver time, refuses illegal ones and redirects the message to
     * {@code rmq_sys_wheel_timer}. The broker registers it before the delay-level step.
     */
    PutMessageTransform putTransform();

    /** Starts (master) or stops (slave) putting due messages back into their real topics. */
    void setDequeueEnabled(boolean enabled);

    boolean dequeueEnabled();

    /** GET_TIMER_CHECK_POINT's body: {@code config/timercheck}'s first 56 bytes as of the last flush. */
    byte[] checkpoint();

    /**
     * On a slave: the master's checkpoint (a GET_TIMER_CHECK_POINT body, 32 or 56 bytes). Enqueue stops at the
     * master's queue offset, and a promoted slave delivers from the master's read time.
     */
    void applyMasterCheckpoint(byte[] body);

    /** GET_TIMER_METRICS's body: {@code config/timermetrics} as JSON (pending timers per real topic). */
    String metricsJson();

    /** The numbers behind the timer metrics, runtime info and status page, as of now. */
    Stats stats();

    /** Called on the delivering thread after each due message was stored in its real topic. */
    void setDeliveryListener(DeliveryListener listener);

    /** Told of each delivery, to measure lateness. Must not block. */
    @FunctionalInterface
    interface DeliveryListener {
        /**
         * @param realTopic   the topic the message was put back into
         * @param dueMillis   when it was due (the client's deliver time as RocketMQ computes it)
         * @param storedMillis when it was stored there
         */
        void delivered(String realTopic, long dueMillis, long storedMillis);
    }

    /**
     * How far the read clock is behind now, in ms ({@link Stats#dequeueLagMillis()}) without the rest of
     * {@link #stats()}, whose congestion sum walks the whole wheel: for callers that poll it often.
     */
    default long dequeueLagMillis() {
        return stats().dequeueLagMillis();
    }

    /**
     * @param pending            timers in the wheel not yet delivered (cancels subtract)
     * @param enqueueLagMessages rmq_sys_wheel_timer entries not yet in the wheel (RocketMQ's timerOffsetBehind)
     * @param enqueueLagMillis   age of the oldest entry not yet in the wheel, 0 when none
     * @param dequeueLagMillis   how far the read clock is behind now (RocketMQ's timerReadBehind, in ms)
     * @param congestNum         sum of the slot counts from the read time on (RocketMQ's timerCongestNum)
     * @param enqueueTps         entries enqueued per second, recent
     * @param dequeueTps         messages delivered per second, recent
     * @param enqueued           entries enqueued since start
     * @param delivered          messages delivered since start
     * @param cancelled          timers cancelled by a TIMER_DEL_UNIQKEY message since start
     * @param droppedEntries     timer-log entries dropped since start because their record is gone or unreadable
     */
    record Stats(long pending, long enqueueLagMessages, long enqueueLagMillis, long dequeueLagMillis, long congestNum,
                 double enqueueTps, double dequeueTps, long enqueued, long delivered, long cancelled,
                 long droppedEntries) {
        public static final Stats NONE = new Stats(0, 0, 0, 0, 0, 0.0, 0.0, 0, 0, 0, 0);
    }
}
