package io.basalt.broker.config;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What Basalt does with a RocketMQ 5.2.0 broker key it does not implement, per key, from the
 * resource {@code rocketmq-5.2.0-unimplemented-keys.txt} (its header gives the format). A
 * {@link KeyClass#TUNING} key is a performance knob whose absence changes no guarantee: warned and
 * ignored. A {@link KeyClass#SEMANTIC} key changes a guarantee (durability, security, delivery,
 * roles, what a client sees): it is accepted only at a value Basalt honours, so that a RocketMQ-only
 * key never silently weakens what the operator asked for. Immutable.
 */
final class RocketMqKeyPolicy {

    static final String RESOURCE = "rocketmq-5.2.0-unimplemented-keys.txt";

    enum KeyClass { TUNING, SEMANTIC }

    /**
     * One classified key.
     *
     * @param honoured for a semantic key, the values Basalt honours (RocketMQ's default); empty for tuning
     * @param instead  for a semantic key, what Basalt offers instead; empty for tuning
     */
    record Rule(String key, KeyClass keyClass, List<String> honoured, String instead) {

        /** Whether Basalt does what {@code value} asks for. */
        boolean honours(String value) {
            String given = normalise(value);
            return honoured.stream().anyMatch(accepted -> sameValue(normalise(accepted), given));
        }

        private static String normalise(String value) {
            return value.strip().replaceAll("\\s+", " ");
        }

        private static boolean sameValue(String accepted, String given) {
            if (accepted.equalsIgnoreCase(given) && (accepted.equals("true") || accepted.equals("false"))) {
                return true;
            }
            try {
                return new BigDecimal(accepted).compareTo(new BigDecimal(given)) == 0;
            } catch (NumberFormatException notNumbers) {
                return accepted.equals(given);
            }
        }
    }

    private static final Map<String, Rule> RULES = load();

    private RocketMqKeyPolicy() {
    }

    static Optional<Rule> rule(String key) {
        return Optional.ofNullable(RULES.get(key));
    }

    /** Every classified key, in the resource's order (semantic keys first). */
    static Map<String, Rule> all() {
        return RULES;
    }

    private static Map<String, Rule> load() {
        InputStream in = RocketMqKeyPolicy.class.getResourceAsStream(RESOURCE);
        if (in == null) {
            throw new IllegalStateException("resource " + RESOURCE + " is missing from the class path");
        }
        Map<String, Rule> rules = new LinkedHashMap<>();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                Rule rule = parse(line);
                if (rules.put(rule.key(), rule) != null) {
                    throw new IllegalStateException(RESOURCE + ": " + rule.key() + " is classified twice");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read resource " + RESOURCE, e);
        }
        return Collections.unmodifiableMap(rules);
    }

    private static Rule parse(String line) {
        String[] fields = line.split("\\|", -1);
        String kind = fields[0].strip();
        if (kind.equals("tuning") && fields.length == 2) {
            return new Rule(fields[1].strip(), KeyClass.TUNING, List.of(), "");
        }
        if (kind.equals("semantic") && fields.length == 4) {
            List<String> honoured = Arrays.stream(fields[2].split(",", -1)).map(String::strip).toList();
            return new Rule(fields[1].strip(), KeyClass.SEMANTIC, honoured, fields[3].strip());
        }
        throw new IllegalStateException(RESOURCE + ": cannot read line '" + line + "'");
    }
}
