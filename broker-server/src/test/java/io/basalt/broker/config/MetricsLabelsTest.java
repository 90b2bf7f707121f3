package io.basalt.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetricsLabelsTest {
    @Test
    void pairsInTheirOrder() {
        Map<String, String> labels = MetricsLabels.parse("env:prod, region : eu-1,empty:");
        assertEquals(List.of("env", "region", "empty"), List.copyOf(labels.keySet()));
        assertEquals("eu-1", labels.get("region"));
        assertEquals("", labels.get("empty"));
        assertTrue(MetricsLabels.parse("").isEmpty());
    }

    @Test
    void whatPrometheusOrTheMetricsCannotTakeIsRefusedWithWhy() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> MetricsLabels.parse("env=prod")).getMessage()
            .contains("not name:value"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> MetricsLabels.parse("1env:x")).getMessage()
            .contains("not a Prometheus label name"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> MetricsLabels.parse("topic:x")).getMessage()
            .contains("set themselves"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> MetricsLabels.parse("a:1,a:2")).getMessage()
            .contains("twice"));
    }
}
