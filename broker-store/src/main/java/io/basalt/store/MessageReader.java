package io.basalt.store;

import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import io.basalt.store.commitlog.MessageRecordDecoder;
import io.basalt.store.commitlog.RecordCrcCheck;
import io.basalt.store.queue.ConsumeQueue;
import io.basalt.store.queue.ConsumeQueueEntry;
import io.basalt.store.queue.ConsumeQueueStore;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read path: a pull walks a ConsumeQueue from a logical offset, filters entries by tag hash (and,
 * for a filter that needs them, by the properties of each CommitLog record), and returns the matching
 * CommitLog records as held slices. RocketMQ's statuses, next-begin offsets,
 * batch limits (in-memory vs on-disk transfer caps) and suggest-pull-from-slave hint. Stateless
 * apart from a thread-local entry buffer; any thread.
 *
 * <p>Every record is checked before it is served ({@link RecordCrcCheck}, unless {@code checkCrcOnRead}
 * is off): its body CRC, and its record CRC (topic and properties too) when it carries one
 * ({@code enabledAppendPropCRC}). A corrupt record (bit rot) is
 * never returned: the batch ends before it with the good records read so far; when it is the first
 * one the pull answers {@link GetMessageStatus#MESSAGE_CORRUPT} with the next-begin offset left on
 * it, so the consumer keeps its queue and retries until an operator resets its offset past it.
 */
final class MessageReader {
    private static final Logger LOG = LoggerFactory.getLogger(MessageReader.class);
    private static final int MIN_FILTER_SCAN_BYTES = 16_000;
    private static final int MIN_ENTRIES_PER_READ = 32;

    private final ConsumeQueueStore queues;
    private final CommitLogReader log;
    private final ReadLimits limits;
    private final ThreadLocal<ByteBuffer> entryBuffer;
    private final MessageRecordDecoder decoder = new MessageRecordDecoder();
    private final CorruptRecordLog corrupt;
    private final boolean checkCrc;

    MessageReader(ConsumeQueueStore queues, CommitLogReader log, ReadLimits limits) {
        this(queues, log, limits, new CorruptRecordLog(System::currentTimeMillis), true);
    }

    MessageReader(ConsumeQueueStore queues, CommitLogReader log, ReadLimits limits, CorruptRecordLog corrupt) {
        this(queues, log, limits, corrupt, true);
    }

    /** @param checkCrc check each record's CRCs before it is served ({@code checkCrcOnRead}) */
    MessageReader(ConsumeQueueStore queues, CommitLogReader log, ReadLimits limits, CorruptRecordLog corrupt,
                  boolean checkCrc) {
        this.corrupt = corrupt;
        this.checkCrc = checkCrc;
        this.queues = queues;
        this.log = log;
        this.limits = limits;
        int capacity = Math.max(MIN_FILTER_SCAN_BYTES, limits.maxTransferCountOnMessageInMemory() * ConsumeQueueEntry.SIZE);
        this.entryBuffer = ThreadLocal.withInitial(() -> ByteBuffer.allocate(capacity / ConsumeQueueEntry.SIZE * ConsumeQueueEntry.SIZE));
    }

    GetMessageResult getMessage(String topic, int queueId, long offset, int maxMsgNums, MessageFilter filter) {
        ConsumeQueue queue = queues.find(topic, queueId);
        if (queue == null) {
            return empty(GetMessageStatus.NO_MATCHED_LOGIC_QUEUE, 0, 0, 0);
        }
        long minOffset = queue.minOffset();
        long maxOffset = queue.maxOffset();
        if (maxOffset == 0) {
            return empty(GetMessageStatus.NO_MESSAGE_IN_QUEUE, 0, minOffset, maxOffset);
        }
        if (offset < minOffset) {
            return empty(GetMessageStatus.OFFSET_TOO_SMALL, minOffset, minOffset, maxOffset);
        }
        if (offset == maxOffset) {
            return empty(GetMessageStatus.OFFSET_OVERFLOW_ONE, offset, minOffset, maxOffset);
        }
        if (offset > maxOffset) {
            return empty(GetMessageStatus.OFFSET_OVERFLOW_BADLY, maxOffset, minOffset, maxOffset);
        }
        try {
            return read(queue, offset, Math.max(1, maxMsgNums), filter == null ? MessageFilter.all() : filter,
                    minOffset, maxOffset);
        } catch (UncheckedIOException e) {
            LOG.error("Reading ConsumeQueue {}-{} at offset {} failed: {}", topic, queueId, offset, e.getCause().toString());
            return empty(GetMessageStatus.OFFSET_FOUND_NULL, offset, minOffset, maxOffset);
        }
    }

    /**
     * RocketMQ's estimate of whether the message at logical {@code consumeQueueOffset} is still in the page
     * cache: its CommitLog position is at most {@link ReadLimits#memoryBytes()} behind the log end
     * ({@code estimateInMemByCommitOffset}, and 4.x's {@code checkInDiskByConsumeOffset} negated). False when
     * the queue has no readable entry there.
     */
    boolean isInMemory(String topic, int queueId, long consumeQueueOffset) {
        ConsumeQueue queue = queues.find(topic, queueId);
        if (queue == null || consumeQueueOffset < queue.minOffset() || consumeQueueOffset >= queue.maxOffset()) {
            return false;
        }
        ConsumeQueueEntry entry;
        try {
            entry = queue.entry(consumeQueueOffset);
        } catch (UncheckedIOException e) {
            return false;
        }
        if (entry == null || entry.isPlaceholder()) {
            return false;
        }
        return log.maxOffset() - entry.physicalOffset() <= limits.memoryBytes();
    }

    private GetMessageResult read(ConsumeQueue queue, long offset, int maxMsgNums, MessageFilter filter,
                                  long minOffset, long maxOffset) {
        ByteBuffer entries = entryBuffer.get();
        int scanLimit = entries.capacity() / ConsumeQueueEntry.SIZE;
        long maxOffsetPy = log.maxOffset();
        long memory = limits.memoryBytes();
        List<SelectedBuffer> found = new ArrayList<>(Math.min(maxMsgNums, 64));
        GetMessageStatus status = GetMessageStatus.NO_MATCHED_MESSAGE;
        int totalSize = 0;
        long nextFileStart = Long.MIN_VALUE;
        long maxPhyOffsetPulling = 0;
        long next = offset;
        boolean full = false;
        // A queue file ends every mappedFileSizeConsumeQueue / 20 entries: keep reading across it
        // until the batch is full, the queue ends, or the filter scan limit is reached.
        while (!full && next < maxOffset && next - offset < scanLimit) {
            entries.clear();
            // read what the batch can use first; more only when entries are filtered out or skipped
            int want = (int) Math.min(scanLimit - (next - offset), Math.max(maxMsgNums, MIN_ENTRIES_PER_READ));
            int count = queue.read(next, want, entries);
            if (count == 0) {
                if (next == offset) {
                    // the queue file went away between the bounds check and the read (retention)
                    return empty(GetMessageStatus.OFFSET_FOUND_NULL, Math.max(offset, queue.minOffset()), minOffset, maxOffset);
                }
                break;
            }
            int processed = 0;
            for (; processed < count; processed++) {
                int at = processed * ConsumeQueueEntry.SIZE;
                long physicalOffset = entries.getLong(at);
                int sizePy = entries.getInt(at + 8);
                long tagsCode = entries.getLong(at + 12);
                if (sizePy == Integer.MAX_VALUE && physicalOffset == 0) {
                    continue; // placeholder for a message this queue never had
                }
                maxPhyOffsetPulling = physicalOffset;
                if (nextFileStart != Long.MIN_VALUE && physicalOffset < nextFileStart) {
                    continue;
                }
                boolean inDisk = maxOffsetPy - physicalOffset > memory;
                if (isBatchFull(sizePy, maxMsgNums, totalSize, found.size(), inDisk)) {
                    full = true;
                    break;
                }
                if (!filter.isMatchedByConsumeQueue(tagsCode)) {
                    continue;
                }
                SelectedBuffer record = log.select(physicalOffset, sizePy);
                if (record == null) {
                    if (found.isEmpty()) {
                        status = GetMessageStatus.MESSAGE_WAS_REMOVING;
                    }
                    nextFileStart = log.rollNextFile(physicalOffset);
                    continue;
                }
                String damage = checkCrc ? RecordCrcCheck.damage(record.buffer()) : null;
                if (damage != null) {
                    record.release();
                    corrupt.report(fileName(physicalOffset), physicalOffset, queue.topic(), queue.queueId(),
                            next + processed, damage);
                    if (found.isEmpty()) {
                        // stay on the bad record: the consumer keeps its queue and its offset
                        return new GetMessageResult(GetMessageStatus.MESSAGE_CORRUPT, next + processed, minOffset,
                                maxOffset, List.of(), 0, false);
                    }
                    full = true;
                    break;
                }
                if (filter.needsProperties() && !matchesProperties(filter, record)) {
                    record.release();
                    continue;
                }
                found.add(record);
                totalSize += sizePy;
                status = GetMessageStatus.FOUND;
                nextFileStart = Long.MIN_VALUE;
            }
            next += processed;
        }
        boolean suggestSlave = maxOffsetPy - maxPhyOffsetPulling > memory;
        return new GetMessageResult(status, next, minOffset, maxOffset, List.copyOf(found), totalSize, suggestSlave);
    }

    private String fileName(long physicalOffset) {
        return String.format("%020d", physicalOffset - physicalOffset % log.fileSize());
    }

    /** Corrupt records found by reads since start. */
    long corruptRecordsFound() {
        return corrupt.count();
    }

    /** The CommitLog stage of the filter: a record whose properties cannot be located does not match. */
    private static boolean matchesProperties(MessageFilter filter, SelectedBuffer record) {
        ByteBuffer properties = MessageRecordDecoder.properties(record.buffer());
        return properties != null && filter.isMatchedByCommitLog(properties);
    }

    /** RocketMQ's isTheBatchFull: the first message always goes; then count and byte caps by locality. */
    private boolean isBatchFull(int sizePy, int maxMsgNums, int bufferTotal, int messageTotal, boolean inDisk) {
        if (bufferTotal == 0 || messageTotal == 0) {
            return false;
        }
        if (messageTotal >= maxMsgNums) {
            return true;
        }
        if (inDisk) {
            return bufferTotal + sizePy > limits.maxTransferBytesOnMessageInDisk()
                    || messageTotal > limits.maxTransferCountOnMessageInDisk() - 1;
        }
        return bufferTotal + sizePy > limits.maxTransferBytesOnMessageInMemory()
                || messageTotal > limits.maxTransferCountOnMessageInMemory() - 1;
    }

    private static GetMessageResult empty(GetMessageStatus status, long next, long min, long max) {
        return new GetMessageResult(status, next, min, max, List.of(), 0, false);
    }

    /**
     * The whole message record at {@code physicalOffset} (its size read from its first 4 bytes), or
     * null if no valid message record starts there.
     */
    SelectedBuffer selectRecord(long physicalOffset) {
        SelectedBuffer head = log.select(physicalOffset, 4);
        if (head == null) {
            return null;
        }
        int size;
        try {
            size = head.buffer().getInt(0);
        } finally {
            head.release();
        }
        if (size <= 0) {
            return null;
        }
        SelectedBuffer record = log.select(physicalOffset, size);
        if (record != null && !decoder.check(record.buffer().duplicate(), false).isOk()) {
            record.release();
            return null;
        }
        return record;
    }
}
