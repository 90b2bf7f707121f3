package io.basalt.store.mappedfile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Resident size of this process's mapping of a file, from /proc/self/smaps. */
final class Smaps {
    private Smaps() {
    }

    static long residentKiB(Path file) throws IOException {
        String name = file.toAbsolutePath().toString();
        List<String> lines = Files.readAllLines(Path.of("/proc/self/smaps"));
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).endsWith(" " + name)) {
                for (int j = i + 1; j < lines.size(); j++) {
                    String line = lines.get(j);
                    if (line.startsWith("Rss:")) {
                        return Long.parseLong(line.replaceAll("[^0-9]", ""));
                    }
                }
            }
        }
        throw new IOException(name + " is not mapped");
    }
}
