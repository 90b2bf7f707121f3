package io.basalt.store.queue;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import io.basalt.common.io.Closeables;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every ConsumeQueue of the store, under {@code <root>/consumequeue/<topic>/<queueId>/}.
 *
 * <p>Threads: queues are created, appended to and committed by the dispatcher (or by recovery
 * before the dispatcher starts); lookups and reads may come from any thread.
 */
public final class ConsumeQueueStore implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumeQueueStore.class);

    private final Path dir;
    private final int fileSize;
    private final DeletedTopics deletedTopics;
    private final OpenFileBudget budget;
    private final ConcurrentMap<String, ConcurrentMap<Integer, ConsumeQueue>> queues = new ConcurrentHashMap<>();
    /** Writer thread only: queues with appended, uncommitted entries. */
    private final Set<ConsumeQueue> uncommitted = new LinkedHashSet<>();

    private ConsumeQueueStore(Path dir, int fileSize, DeletedTopics deletedTopics, OpenFileBudget budget) {
        this.dir = dir;
        this.budget = budget;
        this.fileSize = fileSize;
        this.deletedTopics = deletedTopics;
    }

    /**
     * Opens {@code consumeQueueDir} (RocketMQ: {@code <storePathRootDir>/consumequeue}) and loads every
     * queue found in it, and the record of deleted topics next to it ({@link DeletedTopics#FILE_NAME}
     * in the store root). {@code mappedFileSizeConsumeQueue} is rounded up to a multiple of 20, as
     * RocketMQ does.
     */
    public static ConsumeQueueStore open(Path consumeQueueDir, int mappedFileSizeConsumeQueue) throws IOException {
        return open(consumeQueueDir, mappedFileSizeConsumeQueue, Integer.MAX_VALUE);
    }

    /**
     * As {@link #open(Path, int)}, with at most {@code maxOpenFiles} ConsumeQueue files open at once
     * across all queues ({@code maxOpenConsumeQueueFiles}); loading opens none of them.
     */
    public static ConsumeQueueStore open(Path consumeQueueDir, int mappedFileSizeConsumeQueue, int maxOpenFiles)
            throws IOException {
        OpenFileBudget budget = new OpenFileBudget(maxOpenFiles);
        warnIfOverFdLimit(maxOpenFiles);
        int fileSize = fileSizeFor(mappedFileSizeConsumeQueue);
        DeletedTopics deleted = DeletedTopics.open(consumeQueueDir.resolveSibling(DeletedTopics.FILE_NAME));
        ConsumeQueueStore store = new ConsumeQueueStore(consumeQueueDir, fileSize, deleted, budget);
        Files.createDirectories(consumeQueueDir);
        try (DirectoryStream<Path> topics = Files.newDirectoryStream(consumeQueueDir, Files::isDirectory)) {
            for (Path topicDir : topics) {
                String topic = topicDir.getFileName().toString();
                try (DirectoryStream<Path> ids = Files.newDirectoryStream(topicDir, Files::isDirectory)) {
                    for (Path idDir : ids) {
                        int queueId;
                        try {
                            queueId = Integer.parseInt(idDir.getFileName().toString());
                        } catch (NumberFormatException e) {
                            LOG.warn("Ignoring {}: not a queue id directory", idDir);
                            continue;
                        }
                        ConsumeQueue q = ConsumeQueue.open(idDir, topic, queueId, fileSize, budget);
                        store.queues.computeIfAbsent(topic, t -> new ConcurrentHashMap<>()).put(queueId, q);
                    }
                }
            }
        }
        LOG.info("Loaded {} consume queues from {}", store.allQueues().size(), consumeQueueDir);
        return store;
    }

    /** A bound near the process's open-file limit leaves no descriptors for CommitLog, index and sockets. */
    private static void warnIfOverFdLimit(int maxOpenFiles) {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            long limit = unix.getMaxFileDescriptorCount();
            if (maxOpenFiles != Integer.MAX_VALUE && limit > 0 && maxOpenFiles > limit / 2) {
                LOG.warn("maxOpenConsumeQueueFiles={} is more than half of this process's open-file limit {}: "
                        + "lower it or raise the limit (ulimit -n)", maxOpenFiles, limit);
            }
        }
    }

    /** RocketMQ's MessageStoreConfig.getMappedFileSizeConsumeQueue(): rounded up to whole entries. */
    public static int fileSizeFor(int mappedFileSizeConsumeQueue) {
        if (mappedFileSizeConsumeQueue <= 0) {
            throw new IllegalArgumentException("mappedFileSizeConsumeQueue must be positive: " + mappedFileSizeConsumeQueue);
        }
        int entries = (mappedFileSizeConsumeQueue + ConsumeQueueEntry.SIZE - 1) / ConsumeQueueEntry.SIZE;
        return entries * ConsumeQueueEntry.SIZE;
    }

    public int fileSize() {
        return fileSize;
    }

    /** The topics deleted while their records are still in the CommitLog (the dispatcher skips those records). */
    public DeletedTopics deletedTopics() {
        return deletedTopics;
    }

    /**
     * Removes every queue of {@code topic} from the table and deletes its files and directories.
     * Returns the number of queues destroyed. Writer thread (the dispatcher stopped): a reader in the
     * middle of a read gets no entries (the files' channels are closed), never a crash; slices of the
     * CommitLog it already holds stay valid, the CommitLog being untouched.
     */
    public int destroyTopic(String topic) throws IOException {
        Map<Integer, ConsumeQueue> byId = queues.remove(topic);
        if (byId == null) {
            return 0;
        }
        uncommitted.removeAll(byId.values());
        Closeables.closeAll(byId.values(), ConsumeQueue::destroy);
        Path topicDir = dir.resolve(topic);
        try (DirectoryStream<Path> rest = Files.newDirectoryStream(topicDir)) {
            if (!rest.iterator().hasNext()) {
                Files.delete(topicDir);
            }
        } catch (java.nio.file.NoSuchFileException e) {
            // no directory left
        }
        return byId.size();
    }

    /**
     * Start-up, after {@link #recover()}: destroys the queues of deleted topics that hold only records
     * of the deleted topic (a crash interrupted the deletion after it was recorded). A queue with an
     * entry at or after the deletion offset belongs to the topic created again and stays.
     */
    public void destroyLeftoversOfDeletedTopics() throws IOException {
        for (Map.Entry<String, Long> deleted : deletedTopics.all().entrySet()) {
            Map<Integer, ConsumeQueue> byId = queues.get(deleted.getKey());
            if (byId == null) {
                continue;
            }
            boolean allOld = byId.values().stream().allMatch(q -> q.maxPhysicalOffset() <= deleted.getValue());
            if (allOld) {
                LOG.warn("Topic {} was deleted at CommitLog offset {} but {} of its consume queues are still there: "
                        + "deleting them", deleted.getKey(), deleted.getValue(), byId.size());
                destroyTopic(deleted.getKey());
            }
        }
    }

    /** The queue, or null if it has never been written. */
    public ConsumeQueue find(String topic, int queueId) {
        Map<Integer, ConsumeQueue> byId = queues.get(topic);
        return byId == null ? null : byId.get(queueId);
    }

    /** The queue, created (empty) if needed. Only the writer thread calls this. */
    public ConsumeQueue findOrCreate(String topic, int queueId) throws IOException {
        ConsumeQueue q = find(topic, queueId);
        if (q != null) {
            return q;
        }
        q = ConsumeQueue.open(dir.resolve(topic).resolve(Integer.toString(queueId)), topic, queueId, fileSize, budget);
        queues.computeIfAbsent(topic, t -> new ConcurrentHashMap<>()).put(queueId, q);
        return q;
    }

    /** ConsumeQueue file channels open now, across every queue (at most maxOpenConsumeQueueFiles). */
    public int openFileCount() {
        return budget.openCount();
    }

    /** The most ConsumeQueue file channels open at once since the store opened. */
    public int openFileHighWater() {
        return budget.highWater();
    }

    /** Channels closed to stay within the bound since the store opened. */
    public long openFileEvictions() {
        return budget.evictions();
    }

    public List<ConsumeQueue> allQueues() {
        List<ConsumeQueue> all = new ArrayList<>();
        for (Map<Integer, ConsumeQueue> byId : queues.values()) {
            all.addAll(byId.values());
        }
        return all;
    }

    /**
     * Appends the entry of one dispatched record to {@code queue}; visible after {@link #commit()}.
     * Writer thread.
     */
    public ConsumeQueue.PutResult append(ConsumeQueue queue, DispatchRequest r) throws IOException {
        ConsumeQueue.PutResult result = queue.append(r.physicalOffset(), r.size(), r.tagsCode(), r.consumeQueueOffset());
        if (result == ConsumeQueue.PutResult.APPENDED) {
            uncommitted.add(queue);
        }
        return result;
    }

    /**
     * Commits every queue appended to since the last commit (see {@link ConsumeQueue#commit()}). A
     * queue whose write fails goes back to its published end; the others are still committed, so no
     * queue is left holding appended entries that no later commit would write. Throws the first
     * failure. Writer thread.
     */
    public void commit() throws IOException {
        IOException failure = null;
        try {
            for (ConsumeQueue q : uncommitted) {
                try {
                    q.commit();
                } catch (IOException e) {
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
        } finally {
            uncommitted.clear();
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Recovers every queue (see {@link ConsumeQueue#recover()}).
     *
     * @return the max CommitLog end over all queues, and the lowest CommitLog end of a queue whose
     *         tail was damaged (Long.MAX_VALUE if none): re-dispatch must start there to refill it
     */
    public Recovered recover() throws IOException {
        long maxPhysic = 0;
        long minRepaired = Long.MAX_VALUE;
        for (ConsumeQueue q : allQueues()) {
            if (q.recover()) {
                minRepaired = Math.min(minRepaired, q.maxPhysicalOffset());
            }
            maxPhysic = Math.max(maxPhysic, q.maxPhysicalOffset());
        }
        return new Recovered(maxPhysic, minRepaired);
    }

    /**
     * @param maxPhysicalOffset       max CommitLog end over all queues
     * @param minPhysicOffsetRepaired lowest CommitLog end of a queue cut at damaged entries, or Long.MAX_VALUE
     */
    public record Recovered(long maxPhysicalOffset, long minPhysicOffsetRepaired) {
    }

    /** Max CommitLog end over all queues (RocketMQ's maxPhyOffsetOfConsumeQueue). */
    public long maxPhysicalOffset() {
        long max = 0;
        for (ConsumeQueue q : allQueues()) {
            max = Math.max(max, q.maxPhysicalOffset());
        }
        return max;
    }

    /** Drops entries pointing beyond the recovered CommitLog end, in every queue. */
    public void truncateByMaxPhysicOffset(long commitLogEnd) throws IOException {
        for (ConsumeQueue q : allQueues()) {
            q.truncateByMaxPhysicOffset(commitLogEnd);
        }
    }

    public void correctMinOffsets(long commitLogMinOffset) {
        for (ConsumeQueue q : allQueues()) {
            q.correctMinOffset(commitLogMinOffset);
        }
    }

    /** Retention: deletes the queue files that lie wholly below the CommitLog's min offset. */
    public int deleteFilesBelow(long commitLogMinOffset) throws IOException {
        int deleted = 0;
        for (ConsumeQueue q : allQueues()) {
            deleted += q.deleteFilesBelow(commitLogMinOffset);
        }
        return deleted;
    }

    public void flush() throws IOException {
        flush(0);
    }

    /** {@link ConsumeQueue#flush(int)} of every queue; false if some written bytes stay unforced. */
    public boolean flush(int leastPages) throws IOException {
        boolean all = true;
        for (ConsumeQueue q : allQueues()) {
            all &= q.flush(leastPages);
        }
        return all;
    }

    /** Closes every queue; keeps going after a failure and reports all of them. */
    public void close() throws IOException {
        try {
            Closeables.closeAll(allQueues(), ConsumeQueue::close);
        } finally {
            queues.clear();
        }
    }
}
