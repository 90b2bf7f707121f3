package io.basalt.common.io;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectoriesTest {
    @TempDir
    Path dir;

    @Test
    void syncsADirectory() throws IOException {
        Files.write(dir.resolve("f"), new byte[] {1});
        Directories.fsync(dir);
    }

    @Test
    void aMissingDirectoryFails() {
        assertThrows(IOException.class, () -> Directories.fsync(dir.resolve("missing")));
    }
}
