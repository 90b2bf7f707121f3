package io.basalt.store.mappedfile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Bytes of disk a file really occupies (stat's block count), to tell allocated from sparse files. */
public final class FileBlocks {
    private FileBlocks() {
    }

    public static long allocatedBytes(Path file) throws IOException, InterruptedException {
        Process stat = new ProcessBuilder("stat", "-c", "%b %B", file.toString()).redirectErrorStream(true).start();
        String out;
        try (var stdin = stat.getOutputStream(); var stdout = stat.getInputStream()) {
            out = new String(stdout.readAllBytes(), StandardCharsets.US_ASCII).trim();
        }
        if (!stat.waitFor(10, TimeUnit.SECONDS) || stat.exitValue() != 0) {
            stat.destroy();
            throw new IOException("stat failed: " + out);
        }
        String[] parts = out.split(" ");
        return Long.parseLong(parts[0]) * Long.parseLong(parts[1]);
    }
}
