package io.basalt.broker.config;

import java.util.Objects;

/**
 * A {@code host:port} address as written in {@code broker.conf} ({@code namesrvAddr},
 * {@code haMasterAddress}). An IPv6 host is written in brackets: {@code [::1]:9876}.
 */
public record HostPort(String host, int port) {

    public HostPort {
        Objects.requireNonNull(host, "host");
        if (host.isEmpty()) {
            throw new IllegalArgumentException("empty host");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is not in 1..65535");
        }
    }

    /** Parses {@code host:port}; the exception's message says what is wrong, e.g. "port 99999 is not in 1..65535". */
    static HostPort parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("no port");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        } else if (host.indexOf(':') >= 0) {
            throw new IllegalArgumentException("an IPv6 host needs brackets");
        }
        if (host.isEmpty() || host.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("no valid host");
        }
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("port is not a number");
        }
        return new HostPort(host, port);
    }

    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
