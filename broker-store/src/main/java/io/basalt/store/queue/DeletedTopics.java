package io.basalt.store.queue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.basalt.common.io.Directories;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The topics deleted while their records are still in the CommitLog, each with the CommitLog offset
 * it was deleted at: every record of the topic below that offset belongs to the deleted topic, so
 * the dispatcher never builds a ConsumeQueue entry for it again, neither when recovery re-dispatches
 * the log after a crash nor on a clean start that resumes below it. RocketMQ has no such record: its
 * crash recovery re-dispatches from the checkpoint's file on, which brings back the deleted topic's
 * messages written in that range. Records at or after the offset belong to the topic created again.
 *
 * <p>File {@code deletedTopics} in the store root (RocketMQ ignores it), one line per topic:
 * <pre>
 * &lt;CommitLog offset, decimal&gt; &lt;topic&gt;\n
 * </pre>
 * (topic names hold no blank). Written whole to {@code deletedTopics.tmp}, forced, renamed over the
 * file and the directory synced, so a crash leaves the old or the new content. An entry is dropped
 * once retention has removed every CommitLog byte below its offset.
 *
 * <p>Threads: {@link #record} and {@link #forgetBelow} are called by one thread at a time (the store's
 * topic deletion and load, under the MessageStore's lock); {@link #deletedAt} by any thread (the
 * dispatcher), reading an immutable snapshot.
 */
public final class DeletedTopics {
    private static final Logger LOG = LoggerFactory.getLogger(DeletedTopics.class);
    public static final String FILE_NAME = "deletedTopics";

    private final Path file;
    private volatile Map<String, Long> deletedAt;

    private DeletedTopics(Path file, Map<String, Long> deletedAt) {
        this.file = file;
        this.deletedAt = Map.copyOf(deletedAt);
    }

    /** Reads {@code file} if it exists (a leftover {@code .tmp} of an interrupted write is ignored). */
    public static DeletedTopics open(Path file) throws IOException {
        Map<String, Long> read = new HashMap<>();
        if (Files.exists(file)) {
            int lineNumber = 0;
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                lineNumber++;
                if (line.isBlank()) {
                    continue;
                }
                int blank = line.indexOf(' ');
                try {
                    if (blank <= 0 || blank == line.length() - 1) {
                        throw new NumberFormatException("no '<offset> <topic>'");
                    }
                    read.put(line.substring(blank + 1), Long.parseLong(line.substring(0, blank)));
                } catch (NumberFormatException e) {
                    throw new IOException(file + " line " + lineNumber + " is not '<CommitLog offset> <topic>': " + line);
                }
            }
        }
        Files.deleteIfExists(tmp(file));
        return new DeletedTopics(file, read);
    }

    private static Path tmp(Path file) {
        return file.resolveSibling(file.getFileName() + ".tmp");
    }

    /**
     * The CommitLog offset below which records of {@code topic} belong to a deleted topic, or -1.
     * Any thread.
     */
    public long deletedAt(String topic) {
        Long at = deletedAt.get(topic);
        return at == null ? -1 : at;
    }

    /** True if the record of {@code topic} at {@code physicalOffset} belongs to a deleted topic. */
    public boolean covers(String topic, long physicalOffset) {
        return physicalOffset < deletedAt(topic);
    }

    /** The topics and their deletion offsets (a snapshot). */
    public Map<String, Long> all() {
        return deletedAt;
    }

    /** Records {@code topics} as deleted at {@code commitLogOffset}, durably, before returning. */
    public void record(Set<String> topics, long commitLogOffset) throws IOException {
        Map<String, Long> next = new HashMap<>(deletedAt);
        for (String topic : topics) {
            if (topic.isEmpty() || topic.indexOf(' ') >= 0 || topic.indexOf('\n') >= 0) {
                throw new IllegalArgumentException("not a topic name: '" + topic + "'");
            }
            next.merge(topic, commitLogOffset, Math::max);
        }
        write(next);
    }

    /**
     * Drops the topics whose every record is gone from the CommitLog (deleted at or below
     * {@code commitLogMinOffset}); rewrites the file if any was dropped.
     */
    public void forgetBelow(long commitLogMinOffset) throws IOException {
        Map<String, Long> next = new HashMap<>(deletedAt);
        if (next.values().removeIf(at -> at <= commitLogMinOffset)) {
            LOG.info("Deleted topics whose records retention removed are forgotten; still remembered: {}", next.keySet());
            write(next);
        }
    }

    private void write(Map<String, Long> next) throws IOException {
        StringBuilder text = new StringBuilder();
        new TreeMap<>(next).forEach((topic, at) -> text.append(at).append(' ').append(topic).append('\n'));
        Path tmp = tmp(file);
        try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer bytes = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
            channel.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        Directories.fsync(file.toAbsolutePath().getParent());
        deletedAt = Map.copyOf(next);
    }
}
