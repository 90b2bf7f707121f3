package io.basalt.broker.offset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server-side reset table: one entry per (topic, group, queue), taken once, kept across a reopen. */
class PendingOffsetResetsTest {
    @TempDir
    Path dir;

    @Test
    void aResetIsTakenOnceAndEveryChangeIsOnDisk() throws Exception {
        PendingOffsetResets resets = PendingOffsetResets.open(dir);
        resets.assign("T", "cg", 0, 10);
        resets.assign("T", "cg", 0, 7);
        resets.assign("T", "cg", 1, 3);
        resets.assign("U", "other", 0, 1);
        assertTrue(resets.isPending("T", "cg", 0));
        assertFalse(resets.isPending("T", "other", 0));

        PendingOffsetResets reopened = PendingOffsetResets.open(dir);
        assertEquals(Map.of("T@cg", Map.of(0, 7L, 1, 3L), "U@other", Map.of(0, 1L)), reopened.snapshot());
        assertEquals(7L, reopened.take("T", "cg", 0));
        assertNull(reopened.take("T", "cg", 0));
        assertEquals(Map.of("T@cg", Map.of(1, 3L), "U@other", Map.of(0, 1L)), PendingOffsetResets.open(dir).snapshot());
    }

    @Test
    void deletingAGroupOrATopicForgetsItsResets() throws Exception {
        ConsumerOffsetManager offsets = ConsumerOffsetManager.open(dir);
        offsets.commitOffset(null, "cg", "T", 0, 50);
        offsets.assignResetOffset("T", "cg", 0, 5);
        offsets.assignResetOffset("T", "cg2", 0, 6);
        offsets.assignResetOffset("U", "cg", 0, 7);
        assertEquals(5, offsets.queryOffset("cg", "T", 0), "the committed offset is overwritten");
        assertEquals(-1, offsets.queryOffset("cg2", "T", 0), "a group without offsets on the topic gets none");
        offsets.removeGroup("cg");
        assertEquals(Map.of("T@cg2", Map.of(0, 6L)), offsets.resets().snapshot());
        offsets.removeTopic("T");
        assertEquals(Map.of(), ConsumerOffsetManager.open(dir).resets().snapshot());
    }

    @Test
    void aCorruptFileStopsTheBrokerRatherThanLosingResets() throws Exception {
        Files.writeString(dir.resolve(PendingOffsetResets.FILE_NAME), "{\"offsetTable\":{\"T@cg\":{\"0\":-4}}}",
            StandardCharsets.UTF_8);
        IOException e = assertThrows(IOException.class, () -> PendingOffsetResets.open(dir));
        assertTrue(e.getMessage().contains(PendingOffsetResets.FILE_NAME), e.getMessage());
    }
}
