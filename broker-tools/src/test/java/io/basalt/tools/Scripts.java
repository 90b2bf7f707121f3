package io.basalt.tools;

import io.basalt.it.BrokerProcess;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the bin/ scripts as operators do, and scrapes the broker's HTTP endpoint. */
final class Scripts {
    record Result(int exitCode, String output) {
    }

    private Scripts() {
    }

    /** Runs {@code bin/<script> args...}, output (stdout and stderr) captured in {@code outFile}. */
    static Result run(Path outFile, long timeoutSeconds, String script, String... args)
        throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(BrokerProcess.BASALT_HOME.resolve("bin").resolve(script).toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(outFile.toFile()).start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            throw new IllegalStateException(script + " " + String.join(" ", args) + " did not finish in " + timeoutSeconds
                + " s: " + Files.readString(outFile));
        }
        return new Result(p.exitValue(), Files.readString(outFile));
    }

    /**
     * GETs {@code path} from the broker's HTTP endpoint on one connection, closed before returning. Not
     * java.net.http.HttpClient: Java 17's cannot be closed, and its selector thread lives until the
     * client is garbage collected.
     */
    static String get(int port, String path) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL().openConnection();
        connection.setRequestProperty("Connection", "close");
        try {
            int status = connection.getResponseCode();
            try (InputStream body = status == 200 ? connection.getInputStream() : connection.getErrorStream()) {
                String text = body == null ? "" : new String(body.readAllBytes(), StandardCharsets.UTF_8);
                if (status != 200) {
                    throw new IOException("GET " + path + " answered " + status + ": " + text);
                }
                return text;
            }
        } finally {
            connection.disconnect();
        }
    }

    /** The value of one sample ({@code name{labels}} exactly as exposed), or NaN when absent. */
    static double sample(String exposition, String series) {
        for (String line : exposition.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim().split(" ")[0]);
            }
        }
        return Double.NaN;
    }
}
