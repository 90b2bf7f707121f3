package io.basalt.broker.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class StatusPageHandlerTest {
    private HttpServer server;
    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", new StatusPageHandler(() -> "{\"broker\":\"b</script>\"}"));
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path))
            .build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servesThePageWithTheStatusInlinedAndItsAssetsFromTheJar() throws Exception {
        HttpResponse<String> page = get("/");
        assertEquals(200, page.statusCode());
        assertTrue(page.body().contains("<script id=\"initial-status\" type=\"application/json\">{\"broker\":\"b<\\/script>\"}</script>"),
            "status inlined without closing the script element: " + page.body());
        assertTrue(page.body().contains("<script src=\"/status.js\">"));
        assertTrue(get("/status.js").body().contains("setInterval(poll, 1000)"));
        assertTrue(get("/status.css").headers().firstValue("Content-Type").orElse("").startsWith("text/css"));
        HttpResponse<String> json = get("/status.json");
        assertEquals("application/json", json.headers().firstValue("Content-Type").orElse(""));
        assertEquals("{\"broker\":\"b</script>\"}", json.body());
        assertEquals(404, get("/nope").statusCode());
    }
}
