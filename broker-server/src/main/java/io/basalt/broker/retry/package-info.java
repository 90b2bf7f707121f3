/**
 * Consumer retries and the dead-letter queue: the one rule deciding when a message has used up its
 * retries ({@link io.basalt.broker.retry.RetryBudget}), the names of a group's {@code %RETRY%} and
 * {@code %DLQ%} topics ({@link io.basalt.broker.retry.RetryTopics}) and what happened to retried messages,
 * per group ({@link io.basalt.broker.retry.RetryCounts}). The request processors that apply them are
 * {@code ConsumerSendMsgBackProcessor} (CONSUMER_SEND_MSG_BACK) and {@code SendMessageProcessor} (sends to
 * {@code %RETRY%} topics).
 */
package io.basalt.broker.retry;
