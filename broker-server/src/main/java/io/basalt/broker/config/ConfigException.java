package io.basalt.broker.config;

import java.util.List;

/**
 * The broker configuration cannot be used. Carries every problem found, not just the first, so an
 * operator fixes a file in one pass. Each problem names the key, the value and what is allowed.
 */
public final class ConfigException extends Exception {

    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    ConfigException(List<String> problems) {
        super(message(problems));
        this.problems = List.copyOf(problems);
    }

    ConfigException(String problem) {
        this(List.of(problem));
    }

    /** One line per problem: unknown keys first, then bad values in table order, then rules across keys. */
    public List<String> problems() {
        return problems;
    }

    private static String message(List<String> problems) {
        StringBuilder text = new StringBuilder("invalid broker configuration (")
            .append(problems.size()).append(problems.size() == 1 ? " problem):" : " problems):");
        for (String problem : problems) {
            text.append(System.lineSeparator()).append("  - ").append(problem);
        }
        return text.toString();
    }
}
