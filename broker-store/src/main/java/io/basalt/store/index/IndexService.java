package io.basalt.store.index;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.basalt.common.io.Closeables;
import io.basalt.store.mappedfile.StoreFiles;
import io.basalt.store.queue.DispatchRequest;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The IndexFiles of the store under {@code <root>/index/}, each named by its creation time
 * {@code yyyyMMddHHmmssSSS} (local time), as RocketMQ names them. Every dispatched message is indexed
 * under {@code topic#UNIQ_KEY} and {@code topic#key} for each space-separated token of its KEYS;
 * rollback records are skipped. A full file rolls to a new one.
 *
 * <p>Threads: {@link #buildIndex} and {@link #truncateByMaxPhysicOffset} are called by one writer
 * (the dispatcher, or recovery before it starts); {@link #deleteFilesBelow} by the cleaning thread,
 * which only removes old files and never the newest; {@link #queryOffset} from any thread.
 */
public final class IndexService implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(IndexService.class);
    private static final DateTimeFormatter FILE_NAME = DateTimeFormatter.ofPattern("yyyyMMddHHmmssSSS");

    private final Path dir;
    private final int hashSlotNum;
    private final int indexNum;
    private final Clock clock;
    private final CopyOnWriteArrayList<IndexFile> files = new CopyOnWriteArrayList<>();

    private IndexService(Path dir, int hashSlotNum, int indexNum, Clock clock) {
        if (hashSlotNum <= 0 || indexNum <= 1) {
            throw new IllegalArgumentException("maxHashSlotNum must be > 0 and maxIndexNum > 1: " + hashSlotNum + ", " + indexNum);
        }
        if (IndexFile.fileSize(hashSlotNum, indexNum) > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("maxHashSlotNum " + hashSlotNum + " and maxIndexNum " + indexNum
                    + " make an index file larger than 2 GiB");
        }
        this.dir = dir;
        this.hashSlotNum = hashSlotNum;
        this.indexNum = indexNum;
        this.clock = clock;
    }

    /**
     * Opens {@code indexDir} and loads its files in name (= creation) order. {@code clock} names new
     * files. A file whose name is not a timestamp is ignored with a warning, as RocketMQ does.
     */
    public static IndexService open(Path indexDir, int hashSlotNum, int indexNum, Clock clock) throws IOException {
        IndexService service = new IndexService(indexDir, hashSlotNum, indexNum, clock);
        Files.createDirectories(indexDir);
        List<Path> paths = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(indexDir)) {
            for (Path p : stream) {
                String name = p.getFileName().toString();
                if (StoreFiles.isDeleteLeftover(p)) {
                    Files.delete(p);
                } else if (isTimestampName(name)) {
                    paths.add(p);
                } else {
                    LOG.warn("Ignoring {}: not an index file name", p);
                }
            }
        }
        paths.sort(null);
        try {
            for (int i = 0; i < paths.size(); i++) {
                Path p = paths.get(i);
                // a file of the wrong size stops the start (it names the file: truncated, or the slot and
                // item counts changed); a wrong header is damage, rebuilt
                IndexFile f = IndexFile.load(p, hashSlotNum, indexNum);
                String problem = f.headerProblem();
                if (problem != null) {
                    f.close();
                    service.deleteCorruptFrom(paths.subList(i, paths.size()), p, problem);
                    break;
                }
                service.files.add(f);
            }
        } catch (IOException e) {
            service.closeQuietly(e);
            throw e;
        }
        LOG.info("Loaded {} index files from {}", service.files.size(), indexDir);
        return service;
    }

    /**
     * A corrupt index file and every newer one are deleted: start-up re-dispatches the CommitLog from
     * the end of the last good file (or the log's start), which rebuilds them before the broker serves.
     */
    private void deleteCorruptFrom(List<Path> paths, Path corrupt, String problem) throws IOException {
        LOG.warn("Index file {} is corrupt ({}): deleting it and the {} newer index files; they are rebuilt from the "
            + "CommitLog at start", corrupt, problem, paths.size() - 1);
        for (Path p : paths) {
            Files.deleteIfExists(p);
        }
    }

    /**
     * Crash recovery: checks the content of each file ending at or after {@code indexMsgTimestamp} (the
     * ones the last forced checkpoint does not cover; see {@link IndexFile#contentProblem()}). The first
     * corrupt one is deleted with every newer file, and rebuilt by the re-dispatch from
     * {@link #resumeOffset()}; intact files are kept, so a crash restart re-indexes only the tail after
     * the last indexed record instead of the whole CommitLog. Returns the number of files deleted.
     */
    public int deleteCorruptFilesEndingAtOrAfter(long indexMsgTimestamp) throws IOException {
        for (int i = 0; i < files.size(); i++) {
            IndexFile f = files.get(i);
            if (f.endTimestamp() < indexMsgTimestamp) {
                continue;
            }
            String problem = f.contentProblem();
            if (problem == null) {
                continue;
            }
            List<IndexFile> doomed = new ArrayList<>(files.subList(i, files.size()));
            LOG.warn("Index file {} is corrupt after a crash ({}): deleting it and the {} newer index files; they are "
                + "rebuilt from the CommitLog at start", f.fileName(), problem, doomed.size() - 1);
            for (IndexFile d : doomed) {
                files.remove(d);
                d.delete();
            }
            return doomed.size();
        }
        return 0;
    }

    private static boolean isTimestampName(String name) {
        if (name.length() != 17) {
            return false;
        }
        try {
            LocalDateTime.parse(name, FILE_NAME);
            return true;
        } catch (DateTimeParseException e) {
            return false;
        }
    }

    private void closeQuietly(IOException failure) {
        Closeables.closeAllAfter(failure, files, IndexFile::close);
        files.clear();
    }

    public int fileCount() {
        return files.size();
    }

    List<IndexFile> files() {
        return List.copyOf(files);
    }

    /**
     * Where re-dispatch must start for the index to be complete: the CommitLog offset of the last
     * indexed record (records from there on are indexed again; a key already indexed at exactly that
     * offset may then appear twice, which queries fold), or -1 if no file holds a key.
     */
    public long resumeOffset() {
        for (int i = files.size() - 1; i >= 0; i--) {
            IndexFile f = files.get(i);
            if (!f.isEmpty()) {
                return f.endPhyOffset();
            }
        }
        return -1;
    }

    /** End timestamp of the newest full file (RocketMQ's checkpoint indexMsgTimestamp once flushed), or 0. */
    public long lastFullFileEndTimestamp() {
        for (int i = files.size() - 1; i >= 0; i--) {
            IndexFile f = files.get(i);
            if (f.isWriteFull()) {
                return f.endTimestamp();
            }
        }
        return 0;
    }

    /**
     * Crash recovery, RocketMQ's rule made safe for millisecond ties: deletes, newest first, the files
     * whose end timestamp is at or after {@code indexMsgTimestamp} (unflushed pages may be torn; a file
     * ending in the same millisecond as the last flushed one cannot be told apart from it, so that one
     * goes too). Re-dispatch from {@link #resumeOffset()} rebuilds them. Returns the number deleted.
     */
    public int deleteFilesEndingAtOrAfter(long indexMsgTimestamp) throws IOException {
        int deleted = 0;
        while (!files.isEmpty()) {
            IndexFile last = files.get(files.size() - 1);
            if (last.endTimestamp() < indexMsgTimestamp) {
                break;
            }
            files.remove(files.size() - 1);
            last.delete();
            deleted++;
            LOG.warn("Deleted index file {} after a crash: it ends at {}, after the checkpoint's indexMsgTimestamp {}",
                    last.fileName(), last.endTimestamp(), indexMsgTimestamp);
        }
        return deleted;
    }

    /** Indexes one dispatched record (idempotent for records below the newest file's end offset). */
    public void buildIndex(DispatchRequest r) throws IOException {
        if (!r.goesToIndex()) {
            return;
        }
        boolean hasUniq = r.uniqKey() != null && !r.uniqKey().isEmpty();
        boolean hasKeys = r.keys() != null && !r.keys().isEmpty();
        if (!hasUniq && !hasKeys) {
            return;
        }
        IndexFile file = lastFileOrCreate();
        if (r.physicalOffset() < file.endPhyOffset()) {
            return;
        }
        if (hasUniq) {
            file = putKey(file, r, r.topic() + "#" + r.uniqKey());
        }
        if (hasKeys) {
            for (String key : r.keys().split(" ")) {
                if (!key.isEmpty()) {
                    file = putKey(file, r, r.topic() + "#" + key);
                }
            }
        }
    }

    private IndexFile putKey(IndexFile file, DispatchRequest r, String key) throws IOException {
        IndexFile target = file;
        while (!target.putKey(key, r.physicalOffset(), r.storeTimestamp())) {
            LOG.info("Index file {} is full ({} items), rolling to a new one", target.fileName(), target.indexCount());
            target = lastFileOrCreate();
        }
        return target;
    }

    private IndexFile lastFileOrCreate() throws IOException {
        IndexFile last = files.isEmpty() ? null : files.get(files.size() - 1);
        if (last != null && !last.isWriteFull()) {
            last.ensureBlocks();
            return last;
        }
        long prevEndPhyOffset = last == null ? 0 : last.endPhyOffset();
        long prevEndTimestamp = last == null ? 0 : last.endTimestamp();
        IndexFile created = IndexFile.create(dir.resolve(nextFileName(last)), hashSlotNum, indexNum,
                prevEndPhyOffset, prevEndTimestamp);
        files.add(created);
        LOG.info("Created index file {}", created.path());
        return created;
    }

    /** Creation time as yyyyMMddHHmmssSSS; one millisecond after the newest file if the clock has not moved past it. */
    private String nextFileName(IndexFile last) {
        long now = clock.millis();
        if (last != null) {
            long lastMillis = LocalDateTime.parse(last.fileName(), FILE_NAME).atZone(ZoneId.systemDefault())
                    .toInstant().toEpochMilli();
            now = Math.max(now, lastMillis + 1);
        }
        return FILE_NAME.format(LocalDateTime.ofInstant(Instant.ofEpochMilli(now), ZoneId.systemDefault()));
    }

    /**
     * CommitLog offsets of the messages of {@code topic} indexed under {@code key} and stored within
     * [begin, end] (ms), newest first, at most {@code maxNum}. Walks files newest to oldest, as RocketMQ.
     */
    public QueryOffsetResult queryOffset(String topic, String key, int maxNum, long begin, long end) {
        LinkedHashSet<Long> offsets = new LinkedHashSet<>();
        long lastUpdateTimestamp = 0;
        long lastUpdatePhyOffset = 0;
        Object[] snapshot = files.toArray();
        String indexKey = topic + "#" + key;
        for (int i = snapshot.length - 1; i >= 0 && offsets.size() < maxNum; i--) {
            IndexFile f = (IndexFile) snapshot[i];
            if (i == snapshot.length - 1) {
                lastUpdateTimestamp = f.endTimestamp();
                lastUpdatePhyOffset = f.endPhyOffset();
            }
            if (f.isTimeMatched(begin, end)) {
                f.selectPhyOffsets(offsets, indexKey, maxNum, begin, end);
            }
            if (f.beginTimestamp() < begin) {
                break;
            }
        }
        return new QueryOffsetResult(List.copyOf(offsets), lastUpdateTimestamp, lastUpdatePhyOffset);
    }

    /**
     * Recovery: deletes the newest files that hold keys of records at or beyond {@code commitLogEnd}
     * (the CommitLog was cut behind the index); re-dispatch from {@link #resumeOffset()} rebuilds them.
     * Returns the number of files deleted.
     */
    public int truncateByMaxPhysicOffset(long commitLogEnd) throws IOException {
        int deleted = 0;
        while (!files.isEmpty()) {
            IndexFile last = files.get(files.size() - 1);
            if (last.isEmpty() || last.endPhyOffset() < commitLogEnd) {
                break;
            }
            files.remove(files.size() - 1);
            last.delete();
            deleted++;
            LOG.warn("Deleted index file {}: it indexes records beyond the CommitLog end {}", last.fileName(), commitLogEnd);
        }
        return deleted;
    }

    /** Retention: deletes, oldest first, files (never the newest) whose every record lies below {@code commitLogMinOffset}. */
    public int deleteFilesBelow(long commitLogMinOffset) throws IOException {
        int deleted = 0;
        while (files.size() > 1) {
            IndexFile first = files.get(0);
            if (first.endPhyOffset() >= commitLogMinOffset) {
                break;
            }
            files.remove(first);
            first.delete();
            deleted++;
            LOG.info("Deleted index file {} (all records below CommitLog offset {})", first.fileName(), commitLogMinOffset);
        }
        return deleted;
    }

    public void flush() throws IOException {
        for (IndexFile f : files) {
            f.flush();
        }
    }

    /**
     * Forces (and unmaps) the files that are full, and leaves the one being written to the kernel's
     * writeback, as RocketMQ does. Forcing that file is what a periodic flush must not do: each message's
     * keys dirty random pages of its 20 MB hash-slot table, so forcing it every second wrote several
     * times the message bytes to the device, and it buys no recovery guarantee (the checkpoint records
     * only full files: a crash checks the open file and rebuilds it if damaged). Shutdown forces all.
     */
    public void flushFullFiles() throws IOException {
        for (IndexFile f : files) {
            if (f.isWriteFull()) {
                f.flush();
            }
        }
    }

    /** How many files hold writes not forced yet (the open file between forces; diagnostics and tests). */
    public int unforcedFileCount() {
        return (int) files.stream().filter(IndexFile::dirty).count();
    }

    /** Flushes and closes every file; keeps going after a failure and reports all of them. */
    public void close() throws IOException {
        try {
            Closeables.closeAll(files, IndexFile::close);
        } finally {
            files.clear();
        }
    }
}
