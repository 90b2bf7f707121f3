package io.basalt.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Debian's headless Chromium, one run per call, with a throw-away profile under {@code work}. */
final class Chromium {
    private Chromium() {
    }

    static Scripts.Result run(Path work, String... args) throws IOException, InterruptedException {
        Files.createDirectories(work);
        List<String> cmd = new ArrayList<>(List.of("chromium", "--headless", "--no-sandbox", "--disable-gpu",
            "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
            "--disable-dev-shm-usage", "--hide-scrollbars", "--user-data-dir=" + work.resolve("profile"),
            "--virtual-time-budget=3000"));
        cmd.addAll(List.of(args));
        Path stdout = work.resolve("stdout.html");
        Process p = new ProcessBuilder(cmd).redirectOutput(stdout.toFile())
            .redirectError(work.resolve("stderr.txt").toFile()).start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            throw new IllegalStateException("chromium did not finish in 90 s: " + Files.readString(work.resolve("stderr.txt")));
        }
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        return new Scripts.Result(p.exitValue(), Files.readString(stdout));
    }
}
