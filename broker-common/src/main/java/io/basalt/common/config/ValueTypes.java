package io.basalt.common.config;

import io.basalt.common.config.ValueType.InvalidValueException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** The value types of the configuration table: numbers with ranges, flags, names, paths, addresses. */
public final class ValueTypes {

    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([^}]*)}");

    private ValueTypes() {
    }

    public static ValueType<Integer> integer(int min, int max) {
        return integer(min, max, 1);
    }

    /** An {@code int} in {@code [min, max]} that is a multiple of {@code multipleOf}. */
    public static ValueType<Integer> integer(int min, int max, int multipleOf) {
        String allowed = "an integer from " + min + " to " + max + (multipleOf > 1 ? ", a multiple of " + multipleOf : "");
        return new ValueType<>() {
            @Override
            public Integer parse(String raw, ConfigEnvironment environment) throws InvalidValueException {
                long value = parseLong(raw, "an integer");
                if (value < min || value > max) {
                    throw new InvalidValueException("is out of range");
                }
                if (value % multipleOf != 0) {
                    throw new InvalidValueException("is not a multiple of " + multipleOf);
                }
                return (int) value;
            }

            @Override
            public String allowed() {
                return allowed;
            }
        };
    }

    public static ValueType<Long> longInteger(long min, long max) {
        String allowed = "an integer from " + min + " to " + max;
        return new ValueType<>() {
            @Override
            public Long parse(String raw, ConfigEnvironment environment) throws InvalidValueException {
                long value = parseLong(raw, "an integer");
                if (value < min || value > max) {
                    throw new InvalidValueException("is out of range");
                }
                return value;
            }

            @Override
            public String allowed() {
                return allowed;
            }
        };
    }

    private static long parseLong(String raw, String what) throws InvalidValueException {
        try {
            return Long.parseLong(raw);
        } catch (NumberFormatException e) {
            throw new InvalidValueException("is not " + what);
        }
    }

    /**
     * {@code true} or {@code false}, in any case. RocketMQ reads anything but "true" as false, which
     * turns a typo into a silently disabled feature; Basalt rejects it instead.
     */
    public static ValueType<Boolean> bool() {
        return new ValueType<>() {
            @Override
            public Boolean parse(String raw, ConfigEnvironment environment) throws InvalidValueException {
                if (raw.equalsIgnoreCase("true")) {
                    return Boolean.TRUE;
                }
                if (raw.equalsIgnoreCase("false")) {
                    return Boolean.FALSE;
                }
                throw new InvalidValueException("is not a boolean");
            }

            @Override
            public String allowed() {
                return "true or false";
            }
        };
    }

    /** One of the constants of {@code type}, spelled exactly (RocketMQ uses {@code Enum.valueOf}). */
    public static <E extends Enum<E>> ValueType<E> oneOf(Class<E> type) {
        E[] constants = type.getEnumConstants();
        String allowed = "one of " + Arrays.stream(constants).map(Enum::name).collect(Collectors.joining(", "));
        return new ValueType<>() {
            @Override
            public E parse(String raw, ConfigEnvironment environment) throws InvalidValueException {
                for (E constant : constants) {
                    if (constant.name().equals(raw)) {
                        return constant;
                    }
                }
                for (E constant : constants) {
                    if (constant.name().equalsIgnoreCase(raw)) {
                        throw new InvalidValueException("is not a known value (names are upper case: " + constant.name() + ")");
                    }
                }
                throw new InvalidValueException("is not a known value");
            }

            @Override
            public String allowed() {
                return allowed;
            }
        };
    }

    /** Any text, empty included (it is trimmed like every value). */
    public static ValueType<String> text(String allowed) {
        return new ValueType<>() {
            @Override
            public String parse(String raw, ConfigEnvironment environment) {
                return raw;
            }

            @Override
            public String allowed() {
                return allowed;
            }
        };
    }

    /**
     * A secret, checked by {@code check} (which says what is wrong without quoting the value): printed as
     * {@code <hidden>} when set.
     */
    public static ValueType<String> secret(String allowed, SecretCheck check) {
        return new ValueType<>() {
            @Override
            public String parse(String raw, ConfigEnvironment environment) throws InvalidValueException {
                check.check(raw);
                return raw;
            }

            @Override
            public String allowed() {
                return allowed;
            }

            @Override
            public String format(String value) {
                return value.isEmpty() ? "" : "<hidden>";
            }

            @Override
            public boolean isSecret() {
                return true;
            }
        };
    }

    /** What a secret's text must satisfy; the message never quotes the text. */
    @FunctionalInterface
    public interface SecretCheck {
        void check(String raw) throws InvalidValueException;
    }

    /** A name or host: not empty, no white space. */
    public static ValueType<String> token(String allowed) {
        return new ValueType<>() {
            @Override
            public String parse(String raw, ConfigEnvironment environment) throws InvalidValueException {
                if (raw.isEmpty()) {
                    throw new InvalidValueException("is empty");
                }
                if (raw.chars().anyMatch(Character::isWhitespace)) {
                    throw new InvalidValueException("contains white space");
                }
                return raw;
            }

            @Override
            public String allowed() {
                return allowed;
            }
        };
    }

    /**
     * A directory or file. {@code ${name}} is replaced by a JVM system property or environment
     * variable ({@code ${user.home}}, {@code ${ROCKETMQ_HOME}}), a leading {@code ~/} by the home
     * directory, and a relative path is resolved against the working directory. The result is
     * absolute and normalised, so the effective configuration shows exactly where data goes.
     */
    public static ValueType<Path> path() {
        return new ValueType<>() {
            @Override
            public Path parse(String raw, ConfigEnvironment environment) throws InvalidValueException {
                if (raw.isEmpty()) {
                    throw new InvalidValueException("is empty");
                }
                if (raw.indexOf(';') >= 0) {
                    throw new InvalidValueException("lists several paths (';'), which Basalt does not support");
                }
                String expanded = expandVariables(raw, environment);
                if (expanded.equals("~") || expanded.startsWith("~/")) {
                    expanded = environment.userHome() + expanded.substring(1);
                }
                try {
                    return environment.workingDir().resolve(Path.of(expanded)).normalize();
                } catch (InvalidPathException e) {
                    throw new InvalidValueException("is not a valid path (" + e.getReason() + ")");
                }
            }

            @Override
            public String allowed() {
                return "a path; ${name} is a system property or environment variable, relative is against the working directory";
            }
        };
    }

    private static String expandVariables(String raw, ConfigEnvironment environment) throws InvalidValueException {
        Matcher matcher = VARIABLE.matcher(raw);
        StringBuilder expanded = new StringBuilder();
        while (matcher.find()) {
            String name = matcher.group(1);
            Optional<String> value = environment.variable(name);
            if (value.isEmpty()) {
                throw new InvalidValueException("refers to ${" + name + "}, which is neither a system property nor an environment variable");
            }
            matcher.appendReplacement(expanded, Matcher.quoteReplacement(value.get()));
        }
        matcher.appendTail(expanded);
        return expanded.toString();
    }

    /** Hours of the day separated by ';' (RocketMQ's {@code deleteWhen}: "04", "04;16"). */
    public static ValueType<List<Integer>> hoursOfDay() {
        return new ValueType<>() {
            @Override
            public List<Integer> parse(String raw, ConfigEnvironment environment) throws InvalidValueException {
                TreeSet<Integer> hours = new TreeSet<>();
                for (String part : raw.split(";")) {
                    String entry = part.trim();
                    long hour = parseLong(entry, "a list of hours");
                    if (hour < 0 || hour > 23) {
                        throw new InvalidValueException("has an hour " + entry + " outside 0..23");
                    }
                    hours.add((int) hour);
                }
                return List.copyOf(hours);
            }

            @Override
            public String allowed() {
                return "hours of the day 00 to 23 separated by ';', e.g. 04 or 04;16";
            }

            @Override
            public String format(List<Integer> value) {
                return value.stream().map(hour -> String.format("%02d", hour)).collect(Collectors.joining(";"));
            }
        };
    }
}
