package io.basalt.broker.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RetryBudgetTest {
    @Test
    void aMessageIsReDeliveredExactlyMaxTimes() {
        int max = 3;
        int deliveries = 1;
        // the consumer fails every delivery; the record that failed had been re-delivered r times
        for (int r = 0; ; r++) {
            if (RetryBudget.exhausted(r + 1, max)) {
                break;
            }
            deliveries++;
        }
        assertEquals(max + 1, deliveries, "the first delivery and max re-deliveries");
    }

    @Test
    void theBoundaryIsStrictlyAboveTheMax() {
        assertFalse(RetryBudget.exhausted(16, 16));
        assertTrue(RetryBudget.exhausted(17, 16));
        assertTrue(RetryBudget.exhausted(1, 0), "max 0: the first failure is a dead letter");
    }

    @Test
    void retryTopicNamesAndTheirGroups() {
        assertEquals("cg", RetryTopics.groupOf("%RETRY%cg"));
        assertEquals("cg", RetryTopics.groupOf("%RETRY%cg+TopicA"));
        assertEquals("%DLQ%cg", RetryTopics.dlqTopic("cg"));
        assertEquals("%RETRY%cg", RetryTopics.retryTopic("cg"));
        assertThrows(IllegalArgumentException.class, () -> RetryTopics.groupOf("TopicA"));
    }
}
