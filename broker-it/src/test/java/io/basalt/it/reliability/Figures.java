package io.basalt.it.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The figures a reliability test reports (cycles, acknowledged, lost, duplicated, bad inputs sent,
 * memory high-water marks, ...): one line per test, {@code <suite> key=value key=value ...}, appended to
 * the file named by the system property {@code basalt.reliability.report} (broker-it's pom points it at
 * {@code target/reliability/figures.txt}) and printed to standard output. {@code bin/soak} prints that
 * file at the end of a run; the README's "Reliability" section quotes it.
 *
 * <p>Counts come from system properties so the same test runs small in CI and large in a soak:
 * {@link #scaled(String, int)} reads {@code basalt.reliability.<name>}.
 */
public final class Figures {
    private final String suite;
    private final Map<String, Object> values = new LinkedHashMap<>();

    private Figures(String suite) {
        this.suite = suite;
    }

    /** Starts the figures of one suite (a short name such as {@code crash-loop-sync-flush}). */
    public static Figures of(String suite) {
        return new Figures(suite);
    }

    /** A count for this run: {@code -Dbasalt.reliability.<name>=N}, else the CI default. */
    public static int scaled(String name, int ciDefault) {
        return Integer.getInteger("basalt.reliability." + name, ciDefault);
    }

    /** Sets one figure; a later call with the same key replaces it. */
    public synchronized Figures put(String key, Object value) {
        values.put(key, value);
        return this;
    }

    /** Adds {@code delta} to a numeric figure (0 when absent). */
    public synchronized Figures add(String key, long delta) {
        values.merge(key, delta, (a, b) -> ((Number) a).longValue() + ((Number) b).longValue());
        return this;
    }

    /** Keeps the larger of the recorded value and {@code value} (a high-water mark). */
    public synchronized Figures max(String key, long value) {
        values.merge(key, value, (a, b) -> Math.max(((Number) a).longValue(), ((Number) b).longValue()));
        return this;
    }

    /** The line as written: {@code suite key=value ...}. */
    public synchronized String line() {
        StringJoiner line = new StringJoiner(" ");
        line.add(suite);
        values.forEach((k, v) -> line.add(k + "=" + v));
        return line.toString();
    }

    /** Prints the line and appends it to the report file (if the property names one). */
    public synchronized void report() {
        String line = line();
        System.out.println("RELIABILITY " + line);
        String report = System.getProperty("basalt.reliability.report");
        if (report == null) {
            return;
        }
        try {
            Path file = Path.of(report);
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, line + System.lineSeparator(), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append figures to " + report, e);
        }
    }
}
