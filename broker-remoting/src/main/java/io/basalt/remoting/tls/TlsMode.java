package io.basalt.remoting.tls;

import java.util.Locale;

/**
 * RocketMQ's {@code tls.server.mode}: what a server port does with TLS and with plaintext.
 */
public enum TlsMode {
    /** Plaintext only; a connection that starts a TLS handshake is closed (and logged). */
    DISABLED,
    /** Both on one port: a connection that starts with a TLS handshake gets TLS, any other is plaintext. */
    PERMISSIVE,
    /** TLS only; a plaintext connection is closed before any of its bytes is read as a request. */
    ENFORCING;

    /**
     * The mode a {@code tls.server.mode} value names (any case). RocketMQ reads an unknown value as permissive;
     * Basalt refuses it, so that a typo never leaves TLS other than asked for.
     *
     * @throws IllegalArgumentException an unknown value, with the known ones
     */
    public static TlsMode parse(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        return switch (t) {
            case "disabled" -> DISABLED;
            case "permissive" -> PERMISSIVE;
            case "enforcing" -> ENFORCING;
            default -> throw new IllegalArgumentException("tls.server.mode '" + text + "' is not disabled, permissive or"
                + " enforcing");
        };
    }
}
