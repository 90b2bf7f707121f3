package io.basalt.remoting.tls;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

import javax.net.ssl.SSLException;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.handler.ssl.util.SelfSignedCertificate;

/**
 * RocketMQ's TLS properties ({@code TlsSystemConfig}) and the TLS contexts they make, for the server ports and for
 * the broker's own client connections. RocketMQ reads them as JVM system properties, and lets the properties file
 * named by {@code tls.config.file} override them; Basalt reads them the same way and also from broker.conf, below
 * both. What RocketMQ gets wrong silently is refused here at start-up: an unknown mode or client-auth value
 * ({@code required} is not {@code require}), a certificate without its key, a file that does not exist.
 *
 * <p>RocketMQ's {@code tls.test.mode.enable} (default true) is honoured as RocketMQ does: without a configured
 * certificate the server generates a self-signed one, and a client trusts any server certificate. Such a broker
 * encrypts but does not prove who it is; {@link #describe()} says so and the broker logs it at WARN. Immutable.
 */
public final class TlsSettings {
    /**
     * BoringSSL (netty-tcnative) where its native library loads, else the JDK's engine: the same protocol and
     * certificates either way, BoringSSL at less CPU per record.
     */
    static final SslProvider PROVIDER = OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
    /** Every property RocketMQ reads, with its default. */
    public static final Map<String, String> DEFAULTS = Map.ofEntries(
        Map.entry("tls.server.mode", "permissive"),
        Map.entry("tls.enable", "false"),
        Map.entry("tls.config.file", "/etc/rocketmq/tls.properties"),
        Map.entry("tls.test.mode.enable", "true"),
        Map.entry("tls.server.need.client.auth", "none"),
        Map.entry("tls.server.keyPath", ""),
        Map.entry("tls.server.keyPassword", ""),
        Map.entry("tls.server.certPath", ""),
        Map.entry("tls.server.authClient", "false"),
        Map.entry("tls.server.trustCertPath", ""),
        Map.entry("tls.client.keyPath", ""),
        Map.entry("tls.client.keyPassword", ""),
        Map.entry("tls.client.certPath", ""),
        Map.entry("tls.client.authServer", "false"),
        Map.entry("tls.client.trustCertPath", ""));

    private final Map<String, String> values;
    private final TlsMode serverMode;
    private final ClientAuth clientAuth;

    private TlsSettings(Map<String, String> values) {
        this.values = Map.copyOf(values);
        this.serverMode = TlsMode.parse(values.get("tls.server.mode"));
        this.clientAuth = clientAuth(values.get("tls.server.need.client.auth"));
        bool("tls.enable");
        bool("tls.test.mode.enable");
        bool("tls.server.authClient");
        bool("tls.client.authServer");
        pair("tls.server.certPath", "tls.server.keyPath");
        pair("tls.client.certPath", "tls.client.keyPath");
        for (String key : new String[] {"tls.server.keyPath", "tls.server.certPath", "tls.server.trustCertPath",
            "tls.client.keyPath", "tls.client.certPath", "tls.client.trustCertPath"}) {
            String path = values.get(key);
            if (!path.isEmpty() && !Files.isRegularFile(Path.of(path))) {
                throw new IllegalArgumentException(key + " names " + path + ", which is not a readable file");
            }
        }
        if (bool("tls.server.authClient") && values.get("tls.server.trustCertPath").isEmpty()) {
            throw new IllegalArgumentException("tls.server.authClient=true needs tls.server.trustCertPath (the CA that"
                + " signed the clients' certificates)");
        }
        if (bool("tls.client.authServer") && values.get("tls.client.trustCertPath").isEmpty()) {
            throw new IllegalArgumentException("tls.client.authServer=true needs tls.client.trustCertPath (the CA that"
                + " signed the servers' certificates)");
        }
        if (serverMode != TlsMode.DISABLED && values.get("tls.server.certPath").isEmpty() && !bool("tls.test.mode.enable")) {
            throw new IllegalArgumentException("tls.server.mode=" + serverMode.name().toLowerCase(Locale.ROOT)
                + " without a certificate: set tls.server.certPath and tls.server.keyPath, or tls.server.mode=disabled"
                + " (tls.test.mode.enable=false forbids a generated certificate)");
        }
    }

    /**
     * The settings from, in increasing priority: RocketMQ's defaults, {@code configured} (broker.conf), the JVM
     * system properties, and the file {@code tls.config.file} names (when it exists).
     *
     * @throws IllegalArgumentException a value RocketMQ would misread, naming the key
     * @throws IOException              the properties file cannot be read
     */
    public static TlsSettings resolve(Map<String, String> configured) throws IOException {
        Map<String, String> values = new HashMap<>(DEFAULTS);
        configured.forEach((k, v) -> {
            if (DEFAULTS.containsKey(k) && v != null) {
                values.put(k, v.trim());
            }
        });
        for (String key : DEFAULTS.keySet()) {
            String property = System.getProperty(key);
            if (property != null) {
                values.put(key, property.trim());
            }
        }
        Path file = Path.of(values.get("tls.config.file"));
        if (Files.isRegularFile(file)) {
            Properties p = new Properties();
            try (InputStream in = Files.newInputStream(file)) {
                p.load(in);
            }
            for (String key : p.stringPropertyNames()) {
                if (DEFAULTS.containsKey(key) && !key.equals("tls.server.mode") && !key.equals("tls.enable")) {
                    values.put(key, p.getProperty(key).trim());
                }
            }
        }
        return new TlsSettings(values);
    }

    /** The settings from {@code values} alone (tests, tools): RocketMQ's defaults for what is missing. */
    public static TlsSettings of(Map<String, String> values) {
        Map<String, String> all = new HashMap<>(DEFAULTS);
        all.putAll(values);
        return new TlsSettings(all);
    }

    public TlsMode serverMode() {
        return serverMode;
    }

    /** {@code tls.enable}: whether clients (the broker's own included, with {@code useTLS}) speak TLS. */
    public boolean clientEnabled() {
        return bool("tls.enable");
    }

    /** Whether the server has no certificate of its own and generates one (RocketMQ's test mode). */
    public boolean generatesCertificate() {
        return serverMode != TlsMode.DISABLED && values.get("tls.server.certPath").isEmpty();
    }

    /**
     * The server's TLS context, null with {@link TlsMode#DISABLED}.
     *
     * @throws SSLException a certificate, key or trust file that does not load
     */
    public SslContext serverContext() throws SSLException {
        if (serverMode == TlsMode.DISABLED) {
            return null;
        }
        SslContextBuilder builder;
        if (generatesCertificate()) {
            try {
                SelfSignedCertificate generated = new SelfSignedCertificate("basalt");
                builder = SslContextBuilder.forServer(generated.certificate(), generated.privateKey());
            } catch (CertificateException e) {
                throw new SSLException("cannot generate a self-signed certificate: " + e.getMessage(), e);
            }
        } else {
            builder = SslContextBuilder.forServer(new File(values.get("tls.server.certPath")),
                new File(values.get("tls.server.keyPath")), emptyToNull(values.get("tls.server.keyPassword")));
        }
        builder.sslProvider(PROVIDER).clientAuth(clientAuth);
        if (clientAuth != ClientAuth.NONE) {
            if (bool("tls.server.authClient")) {
                builder.trustManager(new File(values.get("tls.server.trustCertPath")));
            } else {
                // RocketMQ's rule: without authClient any client certificate is accepted
                builder.trustManager(InsecureTrustManagerFactory.INSTANCE);
            }
        }
        return builder.build();
    }

    /** A server's certificate chain and private key as PEM files, and the key's password (null when none). */
    public record ServerKeyMaterial(File certificate, File key, String keyPassword) { }

    /**
     * The server's certificate and key as files, for a TLS stack other than this one's (the gRPC endpoint's shaded
     * Netty): {@code tls.server.certPath} and {@code tls.server.keyPath}, or a self-signed certificate generated now
     * when none is configured (RocketMQ's test mode). Null with {@link TlsMode#DISABLED}.
     *
     * @throws SSLException the certificate cannot be generated
     */
    public ServerKeyMaterial serverKeyMaterial() throws SSLException {
        if (serverMode == TlsMode.DISABLED) {
            return null;
        }
        if (generatesCertificate()) {
            try {
                SelfSignedCertificate generated = new SelfSignedCertificate("basalt");
                return new ServerKeyMaterial(generated.certificate(), generated.privateKey(), null);
            } catch (CertificateException e) {
                throw new SSLException("cannot generate a self-signed certificate: " + e.getMessage(), e);
            }
        }
        return new ServerKeyMaterial(new File(values.get("tls.server.certPath")), new File(values.get("tls.server.keyPath")),
            emptyToNull(values.get("tls.server.keyPassword")));
    }

    /**
     * A client's TLS context (the broker's connections to NameServers, Controller and masters, and tools).
     *
     * @throws SSLException a certificate, key or trust file that does not load
     */
    public SslContext clientContext() throws SSLException {
        SslContextBuilder builder = SslContextBuilder.forClient().sslProvider(PROVIDER);
        if (bool("tls.client.authServer")) {
            builder.trustManager(new File(values.get("tls.client.trustCertPath")));
        } else {
            builder.trustManager(InsecureTrustManagerFactory.INSTANCE);
        }
        if (!values.get("tls.client.certPath").isEmpty()) {
            builder.keyManager(new File(values.get("tls.client.certPath")), new File(values.get("tls.client.keyPath")),
                emptyToNull(values.get("tls.client.keyPassword")));
        }
        return builder.build();
    }

    /** One line for the start-up log, with no secret: the mode, where the certificate comes from, who is verified. */
    public String describe() {
        if (serverMode == TlsMode.DISABLED) {
            return "TLS disabled (tls.server.mode=disabled): plaintext only";
        }
        String certificate = generatesCertificate()
            ? "a self-signed certificate generated at start (tls.test.mode.enable=true, no tls.server.certPath):"
                + " clients cannot verify this broker"
            : "certificate " + values.get("tls.server.certPath");
        String clients = clientAuth == ClientAuth.NONE ? "no client certificate asked"
            : "client certificates " + clientAuth.name().toLowerCase(Locale.ROOT) + (bool("tls.server.authClient")
                ? ", verified against " + values.get("tls.server.trustCertPath") : ", accepted unverified"
                + " (tls.server.authClient=false)");
        return "TLS " + serverMode.name().toLowerCase(Locale.ROOT) + " with " + certificate + "; " + clients + "; "
            + engine();
    }

    /** Which TLS engine runs, and why when it is not BoringSSL. */
    static String engine() {
        if (PROVIDER == SslProvider.OPENSSL) {
            return "engine " + OpenSsl.versionString();
        }
        Throwable why = OpenSsl.unavailabilityCause();
        return "engine: the JDK's (BoringSSL did not load" + (why == null ? "" : ": " + why.getMessage()) + ")";
    }

    private boolean bool(String key) {
        String v = values.get(key).toLowerCase(Locale.ROOT);
        if (!v.equals("true") && !v.equals("false")) {
            throw new IllegalArgumentException(key + "=" + values.get(key) + " is not true or false");
        }
        return v.equals("true");
    }

    private void pair(String cert, String key) {
        if (values.get(cert).isEmpty() != values.get(key).isEmpty()) {
            throw new IllegalArgumentException(cert + " and " + key + " go together: set both or neither");
        }
    }

    private static ClientAuth clientAuth(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        return switch (t) {
            case "none" -> ClientAuth.NONE;
            case "optional" -> ClientAuth.OPTIONAL;
            case "require" -> ClientAuth.REQUIRE;
            default -> throw new IllegalArgumentException("tls.server.need.client.auth '" + text + "' is not none,"
                + " optional or require" + (t.equals("required") ? " (RocketMQ reads 'required' as none)" : ""));
        };
    }

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    @Override
    public String toString() {
        return describe();
    }
}
