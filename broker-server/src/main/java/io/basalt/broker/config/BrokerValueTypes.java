package io.basalt.broker.config;

import io.basalt.broker.topic.TopicValidator;
import io.basalt.common.config.ConfigEnvironment;
import io.basalt.common.config.ValueType;
import io.basalt.common.config.ValueType.InvalidValueException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** The broker's own value types: name server and master addresses, topic names. */
final class BrokerValueTypes {

    private BrokerValueTypes() {
    }

    /** A topic name by RocketMQ's rule: at most 127 characters of {@code [%|a-zA-Z0-9_-]}. */
    static ValueType<String> topicName() {
        return new ValueType<>() {
            @Override
            public String parse(String raw, ConfigEnvironment environment) throws InvalidValueException {
                String invalid = TopicValidator.invalidReason(raw);
                if (invalid != null) {
                    throw new InvalidValueException("is not a topic name: " + invalid);
                }
                return raw;
            }

            @Override
            public String allowed() {
                return "a topic name: at most 127 characters of %|a-zA-Z0-9_-";
            }
        };
    }

    /** An optional {@code host:port}; empty text means unset. */
    static ValueType<Optional<HostPort>> optionalHostPort() {
        return new ValueType<>() {
            @Override
            public Optional<HostPort> parse(String raw, ConfigEnvironment environment) throws InvalidValueException {
                if (raw.isEmpty()) {
                    return Optional.empty();
                }
                try {
                    return Optional.of(HostPort.parse(raw));
                } catch (IllegalArgumentException e) {
                    throw new InvalidValueException("is not host:port (" + e.getMessage() + ")");
                }
            }

            @Override
            public String allowed() {
                return "host:port, or empty for unset";
            }

            @Override
            public String format(Optional<HostPort> value) {
                return value.map(HostPort::toString).orElse("");
            }
        };
    }

    /** {@code host:port} entries separated by ';' (RocketMQ's {@code namesrvAddr}); empty means none. */
    static ValueType<List<HostPort>> hostPortList() {
        return new ValueType<>() {
            @Override
            public List<HostPort> parse(String raw, ConfigEnvironment environment) throws InvalidValueException {
                List<HostPort> addresses = new ArrayList<>();
                for (String part : raw.split(";")) {
                    String entry = part.trim();
                    if (entry.isEmpty()) {
                        continue;
                    }
                    try {
                        addresses.add(HostPort.parse(entry));
                    } catch (IllegalArgumentException e) {
                        throw new InvalidValueException("has an entry '" + entry + "' that is not host:port (" + e.getMessage() + ")");
                    }
                }
                return List.copyOf(addresses);
            }

            @Override
            public String allowed() {
                return "host:port entries separated by ';', or empty for none";
            }

            @Override
            public String format(List<HostPort> value) {
                return value.stream().map(HostPort::toString).collect(Collectors.joining(";"));
            }
        };
    }

}
