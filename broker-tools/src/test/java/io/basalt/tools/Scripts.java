package io.basalt.tools;

import io.basalt.it.BrokerProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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

    static String get(int port, String path) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newHttpClient();
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET " + path + " answered " + r.statusCode() + ": " + r.body());
        }
        return r.body();
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
