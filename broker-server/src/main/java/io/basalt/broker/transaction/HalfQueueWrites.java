package io.basalt.broker.transaction;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageResult;

/** A put the back-check waits for: its result, or null when it did not complete in time or failed. */
final class HalfQueueWrites {
    private HalfQueueWrites() {
    }

    static PutMessageResult put(MessageStore store, BrokerMessage message, long timeoutMs) {
        try {
            return store.asyncPutMessage(message).get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException | TimeoutException e) {
            return null;
        }
    }
}
