package io.basalt.it.metrics;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * A scrape of a Prometheus text exposition (format 0.0.4): every sample with its name, labels and value. Label values
 * are unescaped ({@code \\}, {@code \"}, {@code \n}); comment lines are skipped; a line that is not a sample fails the
 * parse.
 */
public final class PrometheusText {
    public record Sample(String name, Map<String, String> labels, double value) {
        /** True if the sample carries every label of {@code wanted} with its value. */
        public boolean has(Map<String, String> wanted) {
            return wanted.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
        }
    }

    private final List<Sample> samples;

    private PrometheusText(List<Sample> samples) {
        this.samples = samples;
    }

    /** GET /metrics over plain HTTP/1.0 (java.net.http's client leaves a selector thread behind). */
    public static PrometheusText scrape(int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int body = response.indexOf("\r\n\r\n");
            if (!response.startsWith("HTTP/1.") || !response.contains(" 200 ") || body < 0) {
                throw new IOException("scrape failed: " + response.lines().findFirst().orElse(""));
            }
            return parse(response.substring(body + 4));
        }
    }

    public static PrometheusText parse(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            samples.add(sample(line));
        }
        return new PrometheusText(samples);
    }

    private static Sample sample(String line) {
        int i = 0;
        while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
            i++;
        }
        String name = line.substring(0, i);
        Map<String, String> labels = new LinkedHashMap<>();
        if (i < line.length() && line.charAt(i) == '{') {
            i++;
            while (line.charAt(i) != '}') {
                int eq = line.indexOf('=', i);
                String label = line.substring(i, eq).trim();
                if (line.charAt(eq + 1) != '"') {
                    throw new IllegalArgumentException("label value not quoted: " + line);
                }
                StringBuilder value = new StringBuilder();
                int j = eq + 2;
                for (; line.charAt(j) != '"'; j++) {
                    char c = line.charAt(j);
                    if (c == '\\') {
                        char next = line.charAt(++j);
                        value.append(next == 'n' ? '\n' : next);
                    } else {
                        value.append(c);
                    }
                }
                labels.put(label, value.toString());
                i = j + 1;
                if (line.charAt(i) == ',') {
                    i++;
                }
            }
            i++;
        }
        String[] rest = line.substring(i).trim().split(" ");
        return new Sample(name, labels, parseValue(rest[0]));
    }

    private static double parseValue(String v) {
        return switch (v) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(v);
        };
    }

    /** The samples named {@code name} that carry every label of {@code labels}. */
    public List<Sample> samples(String name, Map<String, String> labels) {
        return samples.stream().filter(s -> s.name().equals(name) && s.has(labels)).toList();
    }

    /** The value of the one sample named {@code name} with {@code labels}; empty when there is none; fails on several. */
    public OptionalDouble value(String name, Map<String, String> labels) {
        List<Sample> found = samples(name, labels);
        if (found.size() > 1) {
            throw new AssertionError(found.size() + " samples of " + name + " match " + labels + ": " + found);
        }
        return found.isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(found.get(0).value());
    }

    public List<Sample> all() {
        return samples;
    }
}
