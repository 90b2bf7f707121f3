package io.basalt.broker.metrics;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

import com.sun.net.httpserver.Authenticator;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;

/**
 * {@code metricsAuthToken}: the metrics and status page answer only requests carrying
 * {@code Authorization: Bearer <token>} (compared in constant time); any other gets 401 with a
 * {@code WWW-Authenticate: Bearer} header, as Prometheus' {@code authorization} scrape setting expects.
 */
final class BearerTokenAuthenticator extends Authenticator {
    private static final String PREFIX = "Bearer ";
    private final byte[] token;

    BearerTokenAuthenticator(String token) {
        this.token = token.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public Result authenticate(HttpExchange exchange) {
        String header = exchange.getRequestHeaders().getFirst("Authorization");
        if (header != null && header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())
            && MessageDigest.isEqual(token, header.substring(PREFIX.length()).trim().getBytes(StandardCharsets.UTF_8))) {
            return new Success(new HttpPrincipal("scraper", "metrics"));
        }
        exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"basalt\"");
        return new Failure(401);
    }
}
