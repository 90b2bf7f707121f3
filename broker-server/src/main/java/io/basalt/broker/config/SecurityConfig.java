package io.basalt.broker.config;

import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.basalt.common.config.ConfigValues;

/**
 * Access control and the security of Basalt's own endpoints: built only from {@link SecurityKeys}' resolved values;
 * immutable; obtained from {@link BrokerConfiguration#security()}. {@link #toString()} shows no secret.
 */
public final class SecurityConfig {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A user name and its password (secret key). */
    public record Credentials(String accessKey, String secretKey) {
        @Override
        public String toString() {
            return "Credentials[accessKey=" + accessKey + "]";
        }
    }

    private final ConfigValues values;

    SecurityConfig(ConfigValues values) {
        this.values = values;
    }

    /** ACL 1.0 ({@code aclEnable}). */
    public boolean aclEnable() {
        return values.get(SecurityKeys.ACL_ENABLE);
    }

    public boolean authenticationEnabled() {
        return values.get(SecurityKeys.AUTHENTICATION_ENABLED);
    }

    public boolean authorizationEnabled() {
        return values.get(SecurityKeys.AUTHORIZATION_ENABLED);
    }

    /** Request codes that skip ACL 2.0's authentication. */
    public Set<Integer> authenticationWhitelist() {
        return codes(values.get(SecurityKeys.AUTHENTICATION_WHITELIST));
    }

    /** Request codes that skip ACL 2.0's authorization. */
    public Set<Integer> authorizationWhitelist() {
        return codes(values.get(SecurityKeys.AUTHORIZATION_WHITELIST));
    }

    /** The bootstrap Super user ({@code initAuthenticationUser}), if set. */
    public Optional<Credentials> initAuthenticationUser() {
        return credentials(values.get(SecurityKeys.INIT_AUTHENTICATION_USER), "username", "password");
    }

    /** What this broker signs its own requests with ({@code innerClientAuthenticationCredentials}), if set. */
    public Optional<Credentials> innerClientCredentials() {
        return credentials(values.get(SecurityKeys.INNER_CLIENT_AUTHENTICATION_CREDENTIALS), "accessKey", "secretKey");
    }

    public boolean migrateAuthFromV1Enabled() {
        return values.get(SecurityKeys.MIGRATE_AUTH_FROM_V1_ENABLED);
    }

    /** Where the metrics and status page listen. */
    public String metricsBindAddress() {
        return values.get(SecurityKeys.METRICS_BIND_ADDRESS);
    }

    /** The bearer token the metrics and status page ask for, if set. */
    public Optional<String> metricsAuthToken() {
        String token = values.get(SecurityKeys.METRICS_AUTH_TOKEN);
        return token.isEmpty() ? Optional.empty() : Optional.of(token);
    }


    /** The TLS keys as configured (broker.conf or default), for {@code TlsSettings.resolve}. */
    public java.util.Map<String, String> tlsProperties() {
        java.util.Map<String, String> out = new java.util.HashMap<>();
        for (io.basalt.common.config.ConfigKey<String> key : SecurityKeys.TLS_KEYS) {
            out.put(key.name(), values.get(key));
        }
        return out;
    }

    /** {@code useTLS}: the broker's own connections speak TLS. */
    public boolean useTls() {
        return values.get(SecurityKeys.USE_TLS);
    }

    private static Set<Integer> codes(String list) {
        return list.isEmpty() ? Set.of() : Arrays.stream(list.split(",")).map(String::trim).map(Integer::valueOf)
            .collect(Collectors.toUnmodifiableSet());
    }

    private static Optional<Credentials> credentials(String json, String name, String secret) {
        if (json.isEmpty()) {
            return Optional.empty();
        }
        try {
            JsonNode node = JSON.readTree(json);
            return Optional.of(new Credentials(node.get(name).asText().trim(), node.get(secret).asText().trim()));
        } catch (Exception e) {
            // the key's type checked the JSON when the configuration was read
            throw new IllegalStateException("credentials checked at load no longer parse", e);
        }
    }

    @Override
    public String toString() {
        return "SecurityConfig[aclEnable=" + aclEnable() + ", authenticationEnabled=" + authenticationEnabled()
            + ", authorizationEnabled=" + authorizationEnabled() + "]";
    }
}
