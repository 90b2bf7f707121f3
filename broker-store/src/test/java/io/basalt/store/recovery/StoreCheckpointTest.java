package io.basalt.store.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;


class StoreCheckpointTest {
    @TempDir
    Path dir;

    @Test
    void valuesSurviveReopenAtRocketMqPositions() throws Exception {
        Path file = dir.resolve("store").resolve(StoreCheckpoint.FILE_NAME);
        try (StoreCheckpoint cp = StoreCheckpoint.open(file)) {
            assertEquals(-1, cp.physicRecoveryOffset());
            cp.physicMsgTimestamp(111);
            cp.logicsMsgTimestamp(222);
            cp.indexMsgTimestamp(333);
            cp.masterFlushedOffset(444);
            cp.confirmPhyOffset(555);
            cp.physicRecoveryOffset(666);
            cp.flush();
        }
        assertEquals(4096, Files.size(file));
        ByteBuffer raw = ByteBuffer.wrap(Files.readAllBytes(file));
        assertEquals(111, raw.getLong(0));
        assertEquals(222, raw.getLong(8));
        assertEquals(333, raw.getLong(16));
        assertEquals(444, raw.getLong(24));
        assertEquals(555, raw.getLong(32));
        try (StoreCheckpoint cp = StoreCheckpoint.open(file)) {
            assertEquals(111, cp.physicMsgTimestamp());
            assertEquals(222, cp.logicsMsgTimestamp());
            assertEquals(333, cp.indexMsgTimestamp());
            assertEquals(444, cp.masterFlushedOffset());
            assertEquals(555, cp.confirmPhyOffset());
            assertEquals(666, cp.physicRecoveryOffset());
        }
    }

    @Test
    void tornSlotFallsBackToThePreviousFlush() throws Exception {
        Path file = dir.resolve(StoreCheckpoint.FILE_NAME);
        int lastSlot;
        try (StoreCheckpoint cp = StoreCheckpoint.open(file)) {
            cp.physicRecoveryOffset(1000);
            cp.flush();
            cp.physicRecoveryOffset(2000);
            cp.physicMsgTimestamp(77);
            cp.flush();
            ByteBuffer raw = ByteBuffer.wrap(Files.readAllBytes(file));
            lastSlot = raw.getLong(StoreCheckpoint.SLOT_A) > raw.getLong(StoreCheckpoint.SLOT_B)
                ? StoreCheckpoint.SLOT_A : StoreCheckpoint.SLOT_B;
        }
        // close() flushed once more (same values) into the other slot; tear the newest slot.
        ByteBuffer raw = ByteBuffer.wrap(Files.readAllBytes(file));
        int newest = raw.getLong(StoreCheckpoint.SLOT_A) > raw.getLong(StoreCheckpoint.SLOT_B)
            ? StoreCheckpoint.SLOT_A : StoreCheckpoint.SLOT_B;
        assertTrue(newest != lastSlot);
        tear(file, newest + 40);
        try (StoreCheckpoint cp = StoreCheckpoint.open(file)) {
            assertEquals(2000, cp.physicRecoveryOffset(), "the older slot holds the same flush");
            assertEquals(77, cp.physicMsgTimestamp());
        }
    }

    @Test
    void rocketMqWrittenOrFullyTornFileGivesUnknownRecoveryOffset() throws Exception {
        Path file = dir.resolve(StoreCheckpoint.FILE_NAME);
        ByteBuffer page = ByteBuffer.allocate(4096);
        page.putLong(0, 5000).putLong(8, 4000).putLong(16, 3000);
        Files.write(file, page.array());
        try (StoreCheckpoint cp = StoreCheckpoint.open(file)) {
            assertEquals(-1, cp.physicRecoveryOffset());
            assertEquals(5000, cp.physicMsgTimestamp());
            assertEquals(1000, cp.minTimestamp());
        }
        Files.write(file, new byte[100]);   // a short, zeroed file
        try (StoreCheckpoint cp = StoreCheckpoint.open(file)) {
            assertEquals(-1, cp.physicRecoveryOffset());
            assertEquals(0, cp.minTimestamp());
        }
    }

    @Test
    void checkpointRewrittenByRocketMqForgetsTheRecoveryOffset() throws Exception {
        Path file = dir.resolve(StoreCheckpoint.FILE_NAME);
        try (StoreCheckpoint cp = StoreCheckpoint.open(file)) {
            cp.physicMsgTimestamp(1000);
            cp.physicRecoveryOffset(1 << 20);
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(8).putLong(0, 9000), 0);   // RocketMQ's flush of physicMsgTimestamp
        }
        try (StoreCheckpoint cp = StoreCheckpoint.open(file)) {
            assertEquals(-1, cp.physicRecoveryOffset());
            assertEquals(9000, cp.physicMsgTimestamp());
        }
    }

    @Test
    void flushIfChangedWritesOnlyChanges() throws Exception {
        Path file = dir.resolve(StoreCheckpoint.FILE_NAME);
        try (StoreCheckpoint cp = StoreCheckpoint.open(file)) {
            assertFalse(cp.flushIfChanged(), "a new checkpoint was just written");
            cp.physicRecoveryOffset(42);
            assertTrue(cp.flushIfChanged());
            assertFalse(cp.flushIfChanged());
        }
        try (StoreCheckpoint cp = StoreCheckpoint.open(file)) {
            assertEquals(42, cp.physicRecoveryOffset());
            assertFalse(cp.flushIfChanged(), "values read from the file count as flushed");
        }
    }

    @Test
    void abortMarkerIsCreatedAndDeleted() throws Exception {
        AbortMarker marker = AbortMarker.in(dir.resolve("root"));
        assertFalse(marker.exists());
        marker.create();
        assertTrue(marker.exists());
        assertTrue(Files.exists(dir.resolve("root").resolve("abort")));
        marker.create();
        marker.delete();
        assertFalse(marker.exists());
        marker.delete();
    }

    private static void tear(Path file, int position) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {0x55, 0x66}), position);
        }
    }
}
