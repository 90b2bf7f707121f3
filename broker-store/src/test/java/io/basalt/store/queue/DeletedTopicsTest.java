package io.basalt.store.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeletedTopicsTest {
    @TempDir
    Path dir;

    @Test
    void aRecordedDeletionIsReadBackAndCoversOnlyOlderRecords() throws IOException {
        Path file = dir.resolve(DeletedTopics.FILE_NAME);
        DeletedTopics deleted = DeletedTopics.open(file);
        deleted.record(Set.of("T", "%RETRY%g"), 1000);
        deleted.record(Set.of("T"), 5000);

        DeletedTopics reopened = DeletedTopics.open(file);
        assertEquals(Map.of("T", 5000L, "%RETRY%g", 1000L), reopened.all());
        assertTrue(reopened.covers("T", 4999));
        assertFalse(reopened.covers("T", 5000), "a record at the deletion offset belongs to the topic created again");
        assertFalse(reopened.covers("U", 0));
        assertEquals("1000 %RETRY%g\n5000 T\n", Files.readString(file));
    }

    @Test
    void aDeletionIsForgottenOnceRetentionRemovedItsRecords() throws IOException {
        Path file = dir.resolve(DeletedTopics.FILE_NAME);
        DeletedTopics deleted = DeletedTopics.open(file);
        deleted.record(Set.of("A"), 1000);
        deleted.record(Set.of("B"), 3000);

        deleted.forgetBelow(1000);

        assertEquals(Map.of("B", 3000L), deleted.all());
        assertEquals(Map.of("B", 3000L), DeletedTopics.open(file).all());
    }

    @Test
    void aDamagedFileIsRefusedNamingTheLine() throws IOException {
        Path file = dir.resolve(DeletedTopics.FILE_NAME);
        Files.writeString(file, "12 T\nnot-a-number U\n");
        IOException e = assertThrows(IOException.class, () -> DeletedTopics.open(file));
        assertTrue(e.getMessage().contains("line 2"), e.getMessage());
    }
}
