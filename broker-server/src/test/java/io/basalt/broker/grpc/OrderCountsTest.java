package io.basalt.broker.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class OrderCountsTest {

    @Test
    void perMessageEntriesGiveTheCountsAndLegacyEntriesAreSkipped() {
        OrderCounts counts = OrderCounts.parse("0 qo1%100 2;0 qo1%101 0;0 1 0;0 qo3%7 5");
        assertEquals(2, counts.times(1, 100));
        assertEquals(0, counts.times(1, 101));
        assertEquals(5, counts.times(3, 7));
        assertEquals(0, counts.times(1, 102), "no entry: never delivered before");
    }

    @Test
    void anEmptyOrMissingInfoMeansFirstDeliveries() {
        assertEquals(0, OrderCounts.parse("").times(0, 0));
        assertEquals(0, OrderCounts.parse(null).times(0, 0));
    }
}
