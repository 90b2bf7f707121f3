package io.basalt.store.commitlog;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.store.mappedfile.MappedFile;
import io.basalt.store.mappedfile.MappedFileQueue;

class CommitLogFlushTargetTest {
    private static final int FOLIO = 2 << 20;
    private static final int FILE_SIZE = 4 * FOLIO;

    @TempDir
    Path dir;

    private final List<Long> flushedOffsets = new ArrayList<>();

    private CommitLogFlushTarget target(MappedFileQueue files) {
        return new CommitLogFlushTarget(files, false, () -> { }, (offset, timestamp) -> flushedOffsets.add(offset));
    }

    @Test
    void aPeriodicFlushMakesOnePassAndDoesNotForceTheFolioBeingFilled() throws IOException {
        MappedFileQueue files = new MappedFileQueue(dir, FILE_SIZE, null, MappedFile.Allocation.FALLOCATE);
        try {
            files.lastFileOrCreate(0).appendRaw(ByteBuffer.allocate(FOLIO + 64 * 1024));
            CommitLogFlushTarget target = target(files);
            // A second pass would find only the partial folio left and force it.
            assertEquals(FOLIO, target.flush(4));
            assertEquals(List.of((long) FOLIO), flushedOffsets);
            assertEquals(FOLIO + 64 * 1024, target.flush(4), "the next round forces it, being all there is");
        } finally {
            files.shutdown();
        }
    }

    @Test
    void aFlushGoesOnIntoTheNextFileWhenItTookOneToItsEnd() throws IOException {
        MappedFileQueue files = new MappedFileQueue(dir, FILE_SIZE, null, MappedFile.Allocation.FALLOCATE);
        try {
            files.lastFileOrCreate(0).appendRaw(ByteBuffer.allocate(FILE_SIZE));
            files.lastFileOrCreate(0).appendRaw(ByteBuffer.allocate(FOLIO + 10));
            assertEquals(FILE_SIZE + FOLIO, target(files).flush(4));
            assertEquals(FILE_SIZE + FOLIO + 10, target(files).flush(0));
        } finally {
            files.shutdown();
        }
    }
}
