package io.basalt.broker.config;

import static io.basalt.common.config.ConfigKey.key;
import static io.basalt.common.config.ValueTypes.bool;
import static io.basalt.common.config.ValueTypes.secret;
import static io.basalt.common.config.ValueTypes.text;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.basalt.common.config.ConfigEnvironment;
import io.basalt.common.config.ConfigKey;
import io.basalt.common.config.KeyTable;
import io.basalt.common.config.ValueType;
import io.basalt.common.config.ValueType.InvalidValueException;

/**
 * Access control and TLS: RocketMQ 5.2.0's ACL 1.0 switch ({@code aclEnable}), RocketMQ 5.3's ACL 2.0 keys
 * ({@code AuthConfig}, so that a 5.3 broker.conf with authentication on starts Basalt), RocketMQ's TLS properties
 * (JVM system properties in RocketMQ, accepted here too; a {@code -D} of the same name and the file named by
 * {@code tls.config.file} take precedence, in RocketMQ's order) and Basalt's own keys for its metrics page. ACL 2.0's
 * provider, strategy and cache keys are in {@code rocketmq-5.2.0-unimplemented-keys.txt}: Basalt has one provider
 * and no cache, so RocketMQ's class names are accepted and any other refused. Secrets are printed as
 * {@code <hidden>}.
 */
final class SecurityKeys {
    static final String SECTION = "security";

    private static final ObjectMapper JSON = new ObjectMapper();

    // ---- ACL 1.0 ----
    static final ConfigKey<Boolean> ACL_ENABLE = key("aclEnable", SECTION, bool(), "false",
        "RocketMQ's ACL 1.0: every request must be signed by an account of conf/plain_acl.yml or conf/acl/*.yml"
            + " (reloaded when they change) with the permissions it needs; admin codes need admin: true");

    // ---- ACL 2.0 (RocketMQ 5.3's AuthConfig) ----
    static final ConfigKey<Boolean> AUTHENTICATION_ENABLED = key("authenticationEnabled", SECTION, bool(), "false",
        "RocketMQ 5.3's ACL 2.0: every request must be signed by a user (same signature as ACL 1.0)");
    static final ConfigKey<String> AUTHENTICATION_WHITELIST = key("authenticationWhitelist", SECTION,
        requestCodes(), "", "Request codes (decimal, ',' between them) let in without authentication");
    static final ConfigKey<String> INIT_AUTHENTICATION_USER = key("initAuthenticationUser", SECTION,
        secret("JSON {\"username\":\"...\",\"password\":\"...\"}", raw -> jsonFields(raw, "username", "password")), "",
        "A Super user created at start when missing (RocketMQ's bootstrap user)");
    static final ConfigKey<String> INNER_CLIENT_AUTHENTICATION_CREDENTIALS = key(
        "innerClientAuthenticationCredentials", SECTION,
        secret("JSON {\"accessKey\":\"...\",\"secretKey\":\"...\"}", raw -> jsonFields(raw, "accessKey", "secretKey")),
        "", "The credentials this broker signs its own requests with (a slave's metadata sync from its master, its"
            + " NameServer and Controller requests), with ACL 1.0 as with 2.0; created as a Super user when ACL 2.0 is on");
    static final ConfigKey<Boolean> AUTHORIZATION_ENABLED = key("authorizationEnabled", SECTION, bool(), "false",
        "ACL 2.0: a Normal user's request needs a policy that allows it");
    static final ConfigKey<String> AUTHORIZATION_WHITELIST = key("authorizationWhitelist", SECTION, requestCodes(), "",
        "Request codes (decimal, ',' between them) let in without authorization");
    static final ConfigKey<Boolean> MIGRATE_AUTH_FROM_V1_ENABLED = key("migrateAuthFromV1Enabled", SECTION, bool(),
        "false", "At start, every ACL 1.0 account not yet a user becomes one (admin: Super), with its permissions as"
            + " policies (white addresses are not carried over, as in RocketMQ)");

    // ---- Basalt's own endpoints ----
    static final ConfigKey<String> METRICS_BIND_ADDRESS = key("metricsBindAddress", SECTION,
        io.basalt.common.config.ValueTypes.token("an address without spaces"), "127.0.0.1",
        "Basalt: address the metrics and status page (metricsPort) listen on; the loopback address by default, so that"
            + " nothing is served to the network unless asked for");
    static final ConfigKey<String> METRICS_AUTH_TOKEN = key("metricsAuthToken", SECTION,
        secret("any text of 16 characters or more", raw -> minLength(raw, 16)), "",
        "Basalt: when set, /metrics and the status page answer only requests with 'Authorization: Bearer <token>'"
            + " (401 otherwise)");

    // ---- TLS (RocketMQ's TlsSystemConfig properties; see io.basalt.remoting.tls.TlsSettings) ----
    static final ConfigKey<String> TLS_SERVER_MODE = tls("tls.server.mode", "permissive",
        "disabled, permissive (TLS and plaintext on every remoting port, told apart by the first byte) or enforcing"
            + " (TLS only; plaintext connections are closed before any request is read)");
    static final ConfigKey<String> TLS_ENABLE = tls("tls.enable", "false",
        "Clients' switch in RocketMQ; here the broker's own connections (NameServers, Controller, its master) use TLS"
            + " when it, useTLS or tls.server.mode=enforcing is set");
    static final ConfigKey<String> TLS_CONFIG_FILE = tls("tls.config.file", "/etc/rocketmq/tls.properties",
        "A properties file whose tls.* values override these (RocketMQ's)");
    static final ConfigKey<String> TLS_TEST_MODE_ENABLE = tls("tls.test.mode.enable", "true",
        "RocketMQ's test mode: without tls.server.certPath the broker generates a self-signed certificate (logged at"
            + " WARN: clients cannot verify it), and its own connections trust any server; false refuses both");
    static final ConfigKey<String> TLS_SERVER_NEED_CLIENT_AUTH = tls("tls.server.need.client.auth", "none",
        "none, optional or require: whether TLS clients must show a certificate");
    static final ConfigKey<String> TLS_SERVER_KEY_PATH = tls("tls.server.keyPath", "",
        "The server's private key (PEM, PKCS#8 or PKCS#1)");
    static final ConfigKey<String> TLS_SERVER_KEY_PASSWORD = key("tls.server.keyPassword", SECTION,
        secret("the key's password", raw -> { }), "", "Password of tls.server.keyPath, if it has one");
    static final ConfigKey<String> TLS_SERVER_CERT_PATH = tls("tls.server.certPath", "",
        "The server's certificate chain (PEM)");
    static final ConfigKey<String> TLS_SERVER_AUTH_CLIENT = tls("tls.server.authClient", "false",
        "Verify client certificates against tls.server.trustCertPath (false: any certificate is accepted, as RocketMQ)");
    static final ConfigKey<String> TLS_SERVER_TRUST_CERT_PATH = tls("tls.server.trustCertPath", "",
        "CA certificates that signed the clients' certificates (PEM)");
    static final ConfigKey<String> TLS_CLIENT_KEY_PATH = tls("tls.client.keyPath", "",
        "The broker's client key for its own TLS connections (mutual TLS)");
    static final ConfigKey<String> TLS_CLIENT_KEY_PASSWORD = key("tls.client.keyPassword", SECTION,
        secret("the key's password", raw -> { }), "", "Password of tls.client.keyPath, if it has one");
    static final ConfigKey<String> TLS_CLIENT_CERT_PATH = tls("tls.client.certPath", "",
        "The broker's client certificate for its own TLS connections");
    static final ConfigKey<String> TLS_CLIENT_AUTH_SERVER = tls("tls.client.authServer", "false",
        "The broker's own TLS connections verify the server against tls.client.trustCertPath");
    static final ConfigKey<String> TLS_CLIENT_TRUST_CERT_PATH = tls("tls.client.trustCertPath", "",
        "CA certificates that signed the servers' certificates (PEM)");
    static final ConfigKey<Boolean> USE_TLS = key("useTLS", SECTION, bool(), "false",
        "RocketMQ's client switch: the broker's own connections (NameServers, Controller, its master) use TLS");

    /** The TLS keys, whose values {@code TlsSettings} checks as a whole. */
    static final List<ConfigKey<String>> TLS_KEYS = List.of(TLS_SERVER_MODE, TLS_ENABLE, TLS_CONFIG_FILE,
        TLS_TEST_MODE_ENABLE, TLS_SERVER_NEED_CLIENT_AUTH, TLS_SERVER_KEY_PATH, TLS_SERVER_KEY_PASSWORD,
        TLS_SERVER_CERT_PATH, TLS_SERVER_AUTH_CLIENT, TLS_SERVER_TRUST_CERT_PATH, TLS_CLIENT_KEY_PATH,
        TLS_CLIENT_KEY_PASSWORD, TLS_CLIENT_CERT_PATH, TLS_CLIENT_AUTH_SERVER, TLS_CLIENT_TRUST_CERT_PATH);

    static final KeyTable TABLE = KeyTable.of(List.of(ACL_ENABLE, AUTHENTICATION_ENABLED, AUTHENTICATION_WHITELIST,
        INIT_AUTHENTICATION_USER, INNER_CLIENT_AUTHENTICATION_CREDENTIALS, AUTHORIZATION_ENABLED, AUTHORIZATION_WHITELIST,
        MIGRATE_AUTH_FROM_V1_ENABLED, METRICS_BIND_ADDRESS, METRICS_AUTH_TOKEN,
        TLS_SERVER_MODE, TLS_ENABLE, TLS_CONFIG_FILE, TLS_TEST_MODE_ENABLE, TLS_SERVER_NEED_CLIENT_AUTH,
        TLS_SERVER_KEY_PATH, TLS_SERVER_KEY_PASSWORD, TLS_SERVER_CERT_PATH, TLS_SERVER_AUTH_CLIENT,
        TLS_SERVER_TRUST_CERT_PATH, TLS_CLIENT_KEY_PATH, TLS_CLIENT_KEY_PASSWORD, TLS_CLIENT_CERT_PATH,
        TLS_CLIENT_AUTH_SERVER, TLS_CLIENT_TRUST_CERT_PATH, USE_TLS));

    private SecurityKeys() {
    }

    private static ConfigKey<String> tls(String name, String defaultValue, String description) {
        return key(name, SECTION, text("see the description"), defaultValue, description
            + " (RocketMQ's JVM property; a -D of it and tls.config.file take precedence)");
    }

    /** Decimal request codes separated by ','. */
    private static ValueType<String> requestCodes() {
        return new ValueType<>() {
            @Override
            public String parse(String raw, ConfigEnvironment environment) throws InvalidValueException {
                List<String> codes = new ArrayList<>();
                for (String part : raw.split(",")) {
                    String code = part.trim();
                    if (code.isEmpty()) {
                        continue;
                    }
                    try {
                        Integer.parseInt(code);
                    } catch (NumberFormatException e) {
                        throw new InvalidValueException("has '" + code + "', which is not a request code");
                    }
                    codes.add(code);
                }
                return String.join(",", codes);
            }

            @Override
            public String allowed() {
                return "decimal request codes separated by ','";
            }
        };
    }

    private static void jsonFields(String raw, String... fields) throws InvalidValueException {
        if (raw.isEmpty()) {
            return;
        }
        JsonNode node;
        try {
            node = JSON.readTree(raw);
        } catch (Exception e) {
            throw new InvalidValueException("is not JSON");
        }
        if (node == null || !node.isObject()) {
            throw new InvalidValueException("is not a JSON object");
        }
        for (String field : fields) {
            JsonNode value = node.get(field);
            if (value == null || !value.isTextual() || value.asText().isBlank()) {
                throw new InvalidValueException("has no " + field);
            }
        }
    }

    private static void minLength(String raw, int length) throws InvalidValueException {
        if (!raw.isEmpty() && raw.length() < length) {
            throw new InvalidValueException("has fewer than " + length + " characters");
        }
    }
}
