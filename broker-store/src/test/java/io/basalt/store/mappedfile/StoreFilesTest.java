package io.basalt.store.mappedfile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoreFilesTest {
    @TempDir
    Path dir;

    @Test
    void namesAreTwentyDigitOffsetsAndParseBack() {
        assertEquals("00000000000000000000", StoreFiles.fileName(0));
        assertEquals("00000000001073741824", StoreFiles.fileName(1L << 30));
        assertEquals(Long.MAX_VALUE, StoreFiles.parseFileName(StoreFiles.fileName(Long.MAX_VALUE)));
        assertEquals(1L << 30, StoreFiles.parseFileName("00000000001073741824"));
        assertThrows(IllegalArgumentException.class, () -> StoreFiles.fileName(-1));
    }

    @Test
    void anythingButTwentyDigitsIsNoSegmentName() {
        for (String name : List.of("0000000000107374182", "000000000010737418240", "0000000000107374182x",
            "+0000000001073741824", "99999999999999999999", "00000000001073741824.delete")) {
            assertEquals(-1, StoreFiles.parseFileName(name), name);
        }
    }

    @Test
    void renameForDeleteLeavesOnlyTheDeleteFile() throws IOException {
        Path file = Files.write(dir.resolve(StoreFiles.fileName(0)), new byte[] {1, 2, 3});
        Path renamed = StoreFiles.renameForDelete(file);
        assertEquals(dir.resolve("00000000000000000000.delete"), renamed);
        assertTrue(StoreFiles.isDeleteLeftover(renamed));
        assertFalse(Files.exists(file));
        assertEquals(3, Files.size(renamed));
    }

    @Test
    void deleteRemovesTheFileAndLeavesNoDeleteFile() throws IOException {
        Path file = Files.write(dir.resolve(StoreFiles.fileName(4096)), new byte[] {1});
        StoreFiles.delete(file);
        try (var left = Files.list(dir)) {
            assertEquals(List.of(), left.toList());
        }
    }

    @Test
    void deletingAMissingFileFailsAndTouchesNothingElse() throws IOException {
        Path other = Files.write(dir.resolve(StoreFiles.fileName(0)), new byte[] {1});
        assertThrows(IOException.class, () -> StoreFiles.delete(dir.resolve(StoreFiles.fileName(4096))));
        assertTrue(Files.exists(other));
    }
}
