package io.basalt.broker.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import io.basalt.common.config.ConfigEnvironment;
import io.basalt.common.config.ValueType;

/**
 * RocketMQ's {@code metricsLabel}: {@code k1:v1,k2:v2}, extra constant labels on every rocketmq_* metric. Checked at
 * start, where RocketMQ fails on the first scrape or export: a pair without ':' , a name Prometheus does not accept,
 * a name twice, or one of the labels the metrics set themselves is refused with the reason.
 */
final class MetricsLabels {
    /** Labels the rocketmq_* metrics set themselves. */
    static final Set<String> RESERVED = Set.of("cluster", "node_type", "node_id", "topic", "message_type", "is_system",
        "consumer_group", "is_retry", "language", "version", "protocol_type", "consume_mode", "processor",
        "storage_type", "storage_medium", "le");

    static final ValueType<String> TYPE = new ValueType<>() {
        @Override
        public String parse(String raw, ConfigEnvironment environment) throws InvalidValueException {
            try {
                MetricsLabels.parse(raw);
            } catch (IllegalArgumentException e) {
                throw new InvalidValueException(e.getMessage());
            }
            return raw;
        }

        @Override
        public String allowed() {
            return "name:value pairs separated by ',' (names of [a-zA-Z_][a-zA-Z0-9_]*)";
        }
    };

    private MetricsLabels() {
    }

    /** The pairs of {@code text}, in order; empty for an empty text. */
    static Map<String, String> parse(String text) {
        Map<String, String> labels = new LinkedHashMap<>();
        if (text == null || text.isBlank()) {
            return labels;
        }
        for (String pair : text.split(",")) {
            int colon = pair.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("'" + pair.trim() + "' is not name:value");
            }
            String name = pair.substring(0, colon).trim();
            String value = pair.substring(colon + 1).trim();
            if (!name.matches("[a-zA-Z_][a-zA-Z0-9_]*") || name.startsWith("__")) {
                throw new IllegalArgumentException("'" + name + "' is not a Prometheus label name");
            }
            if (RESERVED.contains(name)) {
                throw new IllegalArgumentException("'" + name + "' is a label the rocketmq_* metrics set themselves");
            }
            if (labels.put(name, value) != null) {
                throw new IllegalArgumentException("'" + name + "' is given twice");
            }
        }
        return Collections.unmodifiableMap(labels);
    }
}
