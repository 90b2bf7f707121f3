package io.basalt.broker.retry;

/**
 * The one rule for "has this message used up its retries", shared by both paths that write retries:
 * CONSUMER_SEND_MSG_BACK (the concurrent consumer's send-back) and a send to a {@code %RETRY%} topic (the
 * orderly consumer, and the concurrent consumer's fallback when its send-back failed).
 *
 * <p>Both paths are asked about the <em>next</em> record: the one that would carry
 * {@code nextReconsumeTimes}, the number of times the message will then have been re-delivered. A message
 * may be re-delivered {@code maxReconsumeTimes} times; the retry that would be re-delivery number
 * {@code maxReconsumeTimes + 1} goes to the DLQ instead. With {@code maxReconsumeTimes = 3}: the first
 * delivery and re-deliveries 1, 2 and 3 reach the listener (4 deliveries), the fourth failure is
 * dead-lettered.
 *
 * <ul>
 *   <li>CONSUMER_SEND_MSG_BACK sees the record that failed, whose reconsumeTimes is {@code r}; the next record
 *       would carry {@code r + 1}. RocketMQ's test there is {@code r >= max}, i.e. {@code r + 1 > max}: the same.</li>
 *   <li>A send to {@code %RETRY%} carries the next record's count itself, in header field
 *       {@code reconsumeTimes} (the client's {@code RECONSUME_TIME = r + 1}). RocketMQ 5.2.0 tests
 *       {@code reconsumeTimes > max}: the same. RocketMQ 4.9 tested {@code >=} there and dead-lettered one
 *       retry early (apache/rocketmq#6163): the off-by-one this class exists to rule out.</li>
 * </ul>
 *
 * <p>Stateless; any thread.
 */
public final class RetryBudget {
    private RetryBudget() {
    }

    /**
     * @param nextReconsumeTimes re-deliveries the message would have had once the retry is delivered
     * @param maxReconsumeTimes  re-deliveries allowed (the client's value, else the group's {@code retryMaxTimes})
     * @return true when the retry must go to the DLQ instead
     */
    public static boolean exhausted(int nextReconsumeTimes, int maxReconsumeTimes) {
        return nextReconsumeTimes > maxReconsumeTimes;
    }
}
