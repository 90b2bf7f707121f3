package io.basalt.it;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.rocketmq.common.message.MessageExt;

/**
 * What a consumer received of a {@link DueMessages} plan, judged against it: every acknowledged send
 * delivered (missing ones listed), how many times (duplicates counted), none early (the store timestamp of the
 * delivered record, which the broker stamps when it puts the due message into its real topic, against the
 * send's earliest due time), bodies and keys intact, and the lateness (store timestamp − due lower bound).
 *
 * <p>{@link #add} may be called from any thread; the judging methods see what was added before them.
 */
public final class DeliveryLog {
    /**
     * One delivered record: its store timestamp, whether its body still equals its key, and its TIMER_OUT_MS
     * property (the wheel slot a timer message was filed under; -1 when absent).
     */
    private record Delivery(long storeTimestamp, boolean intact, long timerOutMs) {
    }

    private final Map<String, List<Delivery>> byKey = new ConcurrentHashMap<>();

    /** Records every message of {@code batch}. */
    public void add(List<MessageExt> batch) {
        for (MessageExt m : batch) {
            String key = m.getKeys();
            boolean intact = key != null && key.equals(new String(m.getBody(), StandardCharsets.UTF_8));
            byKey.computeIfAbsent(String.valueOf(key), k -> Collections.synchronizedList(new ArrayList<>()))
                .add(new Delivery(m.getStoreTimestamp(), intact, timerOut(m.getProperty("TIMER_OUT_MS"))));
        }
    }

    private static long timerOut(String value) {
        try {
            return value == null ? -1 : Long.parseLong(value);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The TIMER_OUT_MS of the first delivery of {@code key}, or -1 when it has none (or was not delivered). */
    public long timerOutMs(String key) {
        return deliveries(key).stream().mapToLong(Delivery::timerOutMs).filter(t -> t >= 0).findFirst().orElse(-1);
    }

    /** Whether every send of {@code plan} was delivered at least once. */
    public boolean hasAll(DueMessages plan) {
        return missing(plan).isEmpty();
    }

    public List<String> missing(DueMessages plan) {
        return plan.all().stream().map(DueMessages.Sent::key).filter(k -> !byKey.containsKey(k)).toList();
    }

    /** How many times {@code key} was delivered. */
    public int copies(String key) {
        return deliveries(key).size();
    }

    /** Deliveries beyond the first of each send of {@code plan}. */
    public long duplicates(DueMessages plan) {
        return plan.all().stream().mapToLong(s -> Math.max(0, deliveries(s.key()).size() - 1)).sum();
    }

    /** Sends of {@code plan} delivered more than once, with their delivery counts (at most {@code limit}). */
    public List<String> duplicated(DueMessages plan, int limit) {
        return plan.all().stream().filter(s -> deliveries(s.key()).size() > 1).limit(limit)
            .map(s -> s.key() + "x" + deliveries(s.key()).size()).toList();
    }

    /** Deliveries stored before their send was due: {@code key kind storedAt<dueAtLeast}. */
    public List<String> early(DueMessages plan) {
        List<String> early = new ArrayList<>();
        for (DueMessages.Sent s : plan.all()) {
            for (Delivery d : deliveries(s.key())) {
                if (d.storeTimestamp() < s.dueAtLeastMs()) {
                    early.add(s.key() + " " + s.kind() + " stored " + (s.dueAtLeastMs() - d.storeTimestamp()) + " ms early");
                }
            }
        }
        return early;
    }

    /** Deliveries whose body is not the key they were sent with. */
    public long damaged() {
        return byKey.values().stream().flatMap(List::stream).filter(d -> !d.intact()).count();
    }

    /** Sends of {@code plan} whose first delivery was stored before {@code timeMs} (i.e. by the broker running then). */
    public List<String> storedBefore(DueMessages plan, long timeMs) {
        return plan.all().stream().filter(s -> firstStored(s.key()) < timeMs).map(DueMessages.Sent::key).toList();
    }

    /** The largest lateness of a first delivery (store timestamp − due lower bound), in ms. */
    public long maxLatenessMs(DueMessages plan) {
        return plan.all().stream().filter(s -> !deliveries(s.key()).isEmpty())
            .mapToLong(s -> firstStored(s.key()) - s.dueAtLeastMs()).max().orElse(0);
    }

    /** The largest lateness of a first delivery per kind of send ({@link DueMessages.Sent#kind()}), in ms. */
    public Map<String, Long> maxLatenessByKind(DueMessages plan) {
        Map<String, Long> byKind = new TreeMap<>();
        for (DueMessages.Sent s : plan.all()) {
            if (!deliveries(s.key()).isEmpty()) {
                byKind.merge(s.kind(), firstStored(s.key()) - s.dueAtLeastMs(), Math::max);
            }
        }
        return byKind;
    }

    /** The store timestamp of the earliest delivery of {@code key}. */
    public long firstStored(String key) {
        return deliveries(key).stream().mapToLong(Delivery::storeTimestamp).min().orElse(Long.MAX_VALUE);
    }

    /** All deliveries received, duplicates included. */
    public long total() {
        return byKey.values().stream().mapToLong(List::size).sum();
    }

    private List<Delivery> deliveries(String key) {
        List<Delivery> list = byKey.get(key);
        if (list == null) {
            return List.of();
        }
        synchronized (list) {
            return List.copyOf(list);
        }
    }
}
