package io.basalt.broker.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class StatusPageHandlerTest {
    private HttpServer server;

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

    private record Response(int statusCode, String body, String contentType) {
    }

    /**
     * One HTTP/1.0 GET on its own socket, read to the end and closed: the server closes an HTTP/1.0
     * connection after the response, so no client keeps a connection (or, as java.net.http.HttpClient
     * before Java 21 does, a selector thread) open after the test.
     */
    private Response get(String path) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.getAddress().getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int headersEnd = response.indexOf("\r\n\r\n");
            String[] head = response.substring(0, headersEnd).split("\r\n");
            int status = Integer.parseInt(head[0].split(" ")[1]);
            String contentType = "";
            for (String header : head) {
                if (header.toLowerCase(Locale.ROOT).startsWith("content-type:")) {
                    contentType = header.substring("content-type:".length()).trim();
                }
            }
            return new Response(status, response.substring(headersEnd + 4), contentType);
        }
    }

    @Test
    void servesThePageWithTheStatusInlinedAndItsAssetsFromTheJar() throws Exception {
        Response page = get("/");
        assertEquals(200, page.statusCode());
        assertTrue(page.body().contains("<script id=\"initial-status\" type=\"application/json\">{\"broker\":\"b<\\/script>\"}</script>"),
            "status inlined without closing the script element: " + page.body());
        assertTrue(page.body().contains("<script src=\"/status.js\">"));
        assertTrue(get("/status.js").body().contains("setInterval(poll, 1000)"));
        assertTrue(get("/status.css").contentType().startsWith("text/css"));
        Response json = get("/status.json");
        assertEquals("application/json", json.contentType());
        assertEquals("{\"broker\":\"b</script>\"}", json.body());
        assertEquals(404, get("/nope").statusCode());
    }

    @Test
    void thePageHasATransactionsSectionThatTheScriptFills() throws Exception {
        String page = get("/").body();
        assertTrue(page.contains("<h2>Transactions</h2><table id=\"transactions\">"), page);
        assertTrue(page.contains("<th>Oldest undecided (s)</th>"), page);
        assertTrue(page.contains("<div id=\"transaction-refusals\">"), page);
        String script = get("/status.js").body();
        assertTrue(script.contains("fillBody('transactions'"), "the script fills the table");
        assertTrue(script.contains("getElementById('transaction-refusals')"), "and the refusal line");
    }
}
