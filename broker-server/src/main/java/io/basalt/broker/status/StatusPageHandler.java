package io.basalt.broker.status;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;

/**
 * The status page on the metrics port: {@code /} (HTML with the current status inlined, so it renders
 * without a round trip), {@code /status.js} and {@code /status.css} (the page's script and style, from
 * the jar; no CDN), {@code /status.json} (the current status, polled by the page every second). Any
 * other path is 404. Runs on the HTTP server's threads.
 */
public final class StatusPageHandler implements HttpHandler {
    private static final String INLINE_MARKER = "/*STATUS_JSON*/";

    private final Supplier<String> statusJson;
    private final String indexTemplate;
    private final byte[] script;
    private final byte[] style;

    /** @param statusJson builds the status document (any thread) */
    public StatusPageHandler(Supplier<String> statusJson) {
        this.statusJson = statusJson;
        this.indexTemplate = new String(resource("index.html"), StandardCharsets.UTF_8);
        this.script = resource("status.js");
        this.style = resource("status.css");
    }

    private static byte[] resource(String name) {
        try (InputStream in = StatusPageHandler.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("status page resource " + name + " missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
                send(exchange, 405, "text/plain; charset=utf-8", "method not allowed\n".getBytes(StandardCharsets.UTF_8));
                return;
            }
            switch (exchange.getRequestURI().getPath()) {
                case "/", "/index.html" -> send(exchange, 200, "text/html; charset=utf-8",
                    indexTemplate.replace(INLINE_MARKER, inlineSafe(statusJson.get())).getBytes(StandardCharsets.UTF_8));
                case "/status.json" -> send(exchange, 200, "application/json",
                    statusJson.get().getBytes(StandardCharsets.UTF_8));
                case "/status.js" -> send(exchange, 200, "text/javascript; charset=utf-8", script);
                case "/status.css" -> send(exchange, 200, "text/css; charset=utf-8", style);
                default -> send(exchange, 404, "text/plain; charset=utf-8",
                    "not found; try / or /metrics\n".getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    /** JSON placed inside a script element must not close it. */
    private static String inlineSafe(String json) {
        return json.replace("</", "<\\/");
    }

    private static void send(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        boolean head = "HEAD".equals(exchange.getRequestMethod());
        exchange.sendResponseHeaders(status, head ? -1 : body.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
