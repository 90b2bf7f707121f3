package io.basalt.broker.stats;

/**
 * The two items RocketMQ keeps side by side for one key: messages ({@code *_NUMS}) and bytes ({@code *_SIZE}),
 * each with one event per request.
 */
public record CountAndSize(StatsItem nums, StatsItem size) {
    CountAndSize() {
        this(new StatsItem(), new StatsItem());
    }

    void add(int messages, long bytes) {
        nums.add(messages);
        size.add(bytes);
    }

    void sample(SamplingTick tick) {
        tick.apply(nums);
        tick.apply(size);
    }

    boolean idleForADay() {
        return nums.idleForADay() && size.idleForADay();
    }
}
