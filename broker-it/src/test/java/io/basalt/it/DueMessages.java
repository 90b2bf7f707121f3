package io.basalt.it;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;

/**
 * Delayed and timer messages a test sent with the official 5.2.0 producer, each with a unique key (the body
 * repeats it) and the earliest time it may be delivered. That time is a lower bound taken on this machine's
 * clock (broker and test share it): for a delay level or a relative timer, the wall clock read just before
 * the send plus the delay (the broker's own put time, to which it adds the delay, can only be later); for an
 * absolute timer, the deliver time itself. Only acknowledged (SEND_OK) sends are recorded.
 *
 * <p>Not thread-safe: one sending thread per instance, or external synchronisation.
 */
public final class DueMessages {
    /**
     * One acknowledged send: its key, what kind of delay it asked for, when it is due at the earliest, its delay
     * level (0 for a timer) and the queue offset the broker answered (for a delay level: the offset in
     * SCHEDULE_TOPIC_XXXX queue level − 1, as RocketMQ answers).
     */
    public record Sent(String key, String kind, long dueAtLeastMs, int level, long queueOffset) {
    }

    private final String topic;
    private final Map<String, Sent> sent = new LinkedHashMap<>();

    public DueMessages(String topic) {
        this.topic = topic;
    }

    public String topic() {
        return topic;
    }

    /** Delay level {@code level} ({@code Message.setDelayTimeLevel}) of {@code delayMs} in the broker's messageDelayLevel. */
    public Sent sendDelayLevel(DefaultMQProducer producer, String key, int level, long delayMs) throws Exception {
        Message msg = message(key);
        msg.setDelayTimeLevel(level);
        return send(producer, msg, "level" + level, level, System.currentTimeMillis() + delayMs);
    }

    /** A timer by relative seconds ({@code setDelayTimeSec}). */
    public Sent sendDelaySec(DefaultMQProducer producer, String key, int seconds) throws Exception {
        Message msg = message(key);
        msg.setDelayTimeSec(seconds);
        return send(producer, msg, "delaySec", 0, System.currentTimeMillis() + seconds * 1000L);
    }

    /** A timer by relative milliseconds ({@code setDelayTimeMs}). */
    public Sent sendDelayMs(DefaultMQProducer producer, String key, long delayMs) throws Exception {
        Message msg = message(key);
        msg.setDelayTimeMs(delayMs);
        return send(producer, msg, "delayMs", 0, System.currentTimeMillis() + delayMs);
    }

    /** A timer by absolute time ({@code setDeliverTimeMs}). */
    public Sent sendDeliverAt(DefaultMQProducer producer, String key, long deliverAtMs) throws Exception {
        Message msg = message(key);
        msg.setDeliverTimeMs(deliverAtMs);
        return send(producer, msg, "deliverAt", 0, deliverAtMs);
    }

    private Message message(String key) {
        return new Message(topic, "due", key, key.getBytes(StandardCharsets.UTF_8));
    }

    private Sent send(DefaultMQProducer producer, Message msg, String kind, int level, long dueAtLeastMs) throws Exception {
        SendResult result = producer.send(msg);
        if (result.getSendStatus() != SendStatus.SEND_OK) {
            throw new IllegalStateException("send of " + msg.getKeys() + " answered " + result);
        }
        Sent s = new Sent(msg.getKeys(), kind, dueAtLeastMs, level, result.getQueueOffset());
        sent.put(s.key(), s);
        return s;
    }

    /** Records a send acknowledged elsewhere (e.g. by a producer thread of a crash test). */
    public void record(Sent s) {
        sent.put(s.key(), s);
    }

    public Map<String, Sent> sent() {
        return Collections.unmodifiableMap(sent);
    }

    public Collection<Sent> all() {
        return sent.values();
    }

    /** The earliest due time of all sends. */
    public long earliestDue() {
        return sent.values().stream().mapToLong(Sent::dueAtLeastMs).min().orElse(Long.MAX_VALUE);
    }

    public long latestDue() {
        return sent.values().stream().mapToLong(Sent::dueAtLeastMs).max().orElse(Long.MIN_VALUE);
    }
}
