package io.basalt.it.grpc;

import com.alibaba.fastjson.JSON;
import com.alibaba.fastjson.JSONObject;
import io.basalt.it.BrokerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The official RocketMQ Node.js 5.x SDK ({@code rocketmq-client-nodejs}, pinned in {@code src/test/node}), installed
 * with {@code npm ci} into {@code target/node-sdk} once per build, and the small script there that drives it. Every
 * run has a deadline after which node and anything it started are killed: no process outlives a test.
 */
final class NodeSdk {
    static final Path SOURCES = BrokerProcess.BASALT_HOME.resolve("broker-it/src/test/node");
    static final Path INSTALL = BrokerProcess.BASALT_HOME.resolve("broker-it/target/node-sdk");
    private static final List<String> FILES = List.of("package.json", "package-lock.json", "sdk-check.js");

    private NodeSdk() {
    }

    /** Why the Node.js SDK cannot run here (no {@code node} or {@code npm} on the PATH), or null when it can. */
    static String missingTools() {
        for (String tool : List.of("node", "npm")) {
            try {
                Run r = run(List.of(tool, "--version"), Path.of("."), Map.of(), 30);
                if (r.exit() != 0) {
                    return tool + " --version exited with " + r.exit() + ": " + r.stderr();
                }
            } catch (IOException e) {
                return "no " + tool + " on the PATH (" + e.getMessage() + "); install Node.js 18+ and npm to run the"
                    + " Node.js SDK test (CI installs Debian's nodejs and npm)";
            }
        }
        return null;
    }

    /** Copies the pinned package files and the script to target/node-sdk and runs {@code npm ci} there, once. */
    static synchronized void install() throws IOException {
        Files.createDirectories(INSTALL);
        boolean lockChanged = !Files.exists(INSTALL.resolve("package-lock.json"))
            || Files.mismatch(SOURCES.resolve("package-lock.json"), INSTALL.resolve("package-lock.json")) != -1;
        for (String f : FILES) {
            Files.copy(SOURCES.resolve(f), INSTALL.resolve(f), StandardCopyOption.REPLACE_EXISTING);
        }
        if (!lockChanged && Files.exists(INSTALL.resolve("node_modules/rocketmq-client-nodejs/package.json"))) {
            return;
        }
        // no install scripts: the SDK ships compiled JavaScript and generated protobuf code
        Run r = run(List.of("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"), INSTALL, Map.of(), 600);
        if (r.exit() != 0) {
            throw new IOException("npm ci in " + INSTALL + " failed (" + r.exit() + "): " + r.stdout() + r.stderr());
        }
    }

    /**
     * Runs {@code node sdk-check.js args...} and returns its RESULT object; fails with the script's error and its log
     * otherwise.
     */
    static JSONObject script(Map<String, String> env, long timeoutSeconds, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("node", "sdk-check.js"));
        command.addAll(List.of(args));
        Run r = run(command, INSTALL, env, timeoutSeconds);
        for (String line : r.stdout().split("\n")) {
            if (line.startsWith("RESULT ")) {
                return JSON.parseObject(line.substring("RESULT ".length()));
            }
        }
        throw new AssertionError("node sdk-check.js " + String.join(" ", args) + " exited with " + r.exit()
            + "\nstdout: " + r.stdout() + "\nstderr (SDK log): " + r.stderr());
    }

    record Run(int exit, String stdout, String stderr) { }

    private static Run run(List<String> command, Path dir, Map<String, String> env, long timeoutSeconds)
        throws IOException {
        // output goes to files, not pipes: no reader threads, and a chatty child can never block on a full pipe
        Path out = Files.createTempFile("node-out", ".txt");
        Path err = Files.createTempFile("node-err", ".txt");
        try {
            ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
            pb.environment().putAll(env);
            Process p = pb.start();
            try {
                if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    kill(p);
                    return new Run(-1, Files.readString(out), Files.readString(err) + "\n(killed after "
                        + timeoutSeconds + " s)");
                }
                return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
            } catch (InterruptedException e) {
                kill(p);
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while running " + command, e);
            }
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static void kill(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        try {
            p.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
