package io.basalt.broker.grpc;

import io.grpc.Context;
import io.grpc.Metadata;
import java.net.SocketAddress;

/**
 * What a 5.x client says about itself in every call's headers (§2.3): its client id ({@code x-mq-client-id},
 * required), language, SDK version and namespace, and the address the call came from.
 */
record ClientMetadata(String clientId, String language, String version, String namespace, SocketAddress remoteAddress) {
    static final Metadata.Key<String> CLIENT_ID = key("x-mq-client-id");
    static final Metadata.Key<String> LANGUAGE = key("x-mq-language");
    static final Metadata.Key<String> CLIENT_VERSION = key("x-mq-client-version");
    static final Metadata.Key<String> NAMESPACE = key("x-mq-namespace");
    static final Metadata.Key<String> AUTHORIZATION = key("authorization");

    /** The calling client's metadata, set by {@link MetadataInterceptor} for the call's handlers. */
    static final Context.Key<ClientMetadata> CURRENT = Context.key("basalt-client-metadata");

    static ClientMetadata of(Metadata headers, SocketAddress remoteAddress) {
        return new ClientMetadata(value(headers, CLIENT_ID), value(headers, LANGUAGE), value(headers, CLIENT_VERSION),
            value(headers, NAMESPACE), remoteAddress);
    }

    static ClientMetadata current() {
        ClientMetadata m = CURRENT.get();
        return m == null ? new ClientMetadata("", "", "", "", null) : m;
    }

    boolean hasClientId() {
        return !clientId.isBlank();
    }

    /**
     * The names of RocketMQ 5.2.0's remoting {@code LanguageCode}: the only ones its admin tools can read back from
     * a connection listing (an unknown name there decodes as no language at all).
     */
    private static final java.util.Set<String> REMOTING_LANGUAGES = java.util.Set.of("JAVA", "CPP", "DOTNET", "PYTHON",
        "DELPHI", "ERLANG", "RUBY", "OTHER", "HTTP", "GO", "PHP", "OMS", "RUST");

    /**
     * The remoting language code name for the client registries: JAVA, GO, ...; OTHER when absent or not a 5.2.0
     * code (older Node.js SDKs send {@code nodejs}, and there is no remoting code for Node.js).
     */
    String languageName() {
        String name = language.trim().toUpperCase(java.util.Locale.ROOT);
        return REMOTING_LANGUAGES.contains(name) ? name : "OTHER";
    }

    /** The remote address as host:port, without a leading slash. */
    String remoteHost() {
        if (remoteAddress instanceof java.net.InetSocketAddress a) {
            return (a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString()) + ":" + a.getPort();
        }
        return remoteAddress == null ? "" : remoteAddress.toString();
    }

    private static Metadata.Key<String> key(String name) {
        return Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
    }

    private static String value(Metadata headers, Metadata.Key<String> key) {
        String v = headers.get(key);
        return v == null ? "" : v;
    }
}
