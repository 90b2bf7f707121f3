package io.basalt.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import io.basalt.store.commitlog.MessageRecordEncoder;
import io.basalt.store.mappedfile.MappedFile;
import io.basalt.store.mappedfile.MappedFileQueue;
import io.basalt.store.queue.DispatchSource;

/**
 * A minimal single-threaded CommitLog over a real MappedFileQueue (RocketMQ's record and END_OF_FILE
 * rules), for read-path and dispatch tests that must not depend on the CommitLog's put path.
 */
final class TestCommitLog implements CommitLogReader, DispatchSource, AutoCloseable {
    final MappedFileQueue files;
    private final MessageRecordEncoder encoder = new MessageRecordEncoder();
    private final Map<String, Long> queueOffsets = new HashMap<>();
    long storeTimestamp = 1_700_000_000_000L;

    TestCommitLog(Path dir, int fileSize) throws IOException {
        files = new MappedFileQueue(dir, fileSize, null);
        files.load();
    }

    /** Appends and returns the record's offset. */
    long append(BrokerMessage m) throws IOException {
        int length = MessageRecordEncoder.recordLength(m);
        MappedFile file = files.lastFileOrCreate(0);
        if (length + 8 > file.fileSize() - file.wrotePosition()) {
            file.append((offset, target) -> {
                int rest = target.remaining();
                MessageRecordEncoder.writeEndOfFile(target, rest);
                return rest;
            });
            file = files.lastFileOrCreate(0);
        }
        String key = m.topic() + "-" + m.queueId();
        long queueOffset = queueOffsets.getOrDefault(key, 0L);
        queueOffsets.put(key, queueOffset + 1);
        long[] at = new long[1];
        long time = storeTimestamp++;
        file.append((offset, target) -> {
            at[0] = offset;
            return encoder.encode(m, offset, queueOffset, time, target);
        });
        return at[0];
    }

    @Override
    public SelectedBuffer select(long offset, int size) {
        MappedFile file = files.findFileByOffset(offset, false);
        return file == null ? null : file.select((int) (offset - file.fileFromOffset()), size);
    }

    @Override
    public long minOffset() {
        return Math.max(0, files.minOffset());
    }

    @Override
    public long maxOffset() {
        return files.maxOffset();
    }

    @Override
    public long rollNextFile(long offset) {
        return offset - offset % files.fileSize() + files.fileSize();
    }

    @Override
    public int fileSize() {
        return files.fileSize();
    }

    @Override
    public long dispatchLimit() {
        return maxOffset();
    }

    @Override
    public long nextFileOffset(long offset) {
        return rollNextFile(offset);
    }

    @Override
    public View read(long offset) {
        MappedFile file = files.findFileByOffset(offset, false);
        SelectedBuffer b = file == null ? null : file.select((int) (offset - file.fileFromOffset()));
        if (b == null) {
            return null;
        }
        return new View() {
            @Override
            public ByteBuffer buffer() {
                return b.buffer();
            }

            @Override
            public void close() {
                b.release();
            }
        };
    }

    @Override
    public void close() {
        files.shutdown();
    }
}
