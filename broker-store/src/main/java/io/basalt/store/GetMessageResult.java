package io.basalt.store;

import java.util.List;


/**
 * Answer of {@link MessageStore#getMessage}: the records as read-only slices of the mapped CommitLog
 * files (zero copy). Each slice keeps its file mapped, so a retention delete waits for it; the caller
 * must {@link #close()} the result once the bytes are sent or copied.
 *
 * @param status                  RocketMQ's status
 * @param nextBeginOffset         logical offset to pull from next
 * @param minOffset               queue's min logical offset at the time of the read
 * @param maxOffset               queue's max logical offset (next to be written)
 * @param messages                the records, in queue order; empty unless FOUND
 * @param bufferTotalSize         sum of the records' sizes
 * @param suggestPullingFromSlave true when the read is far behind the log end (more than
 *                                accessMessageInMemoryMaxRatio of physical memory), so a slave
 *                                should serve this consumer (RocketMQ's hint)
 */
public record GetMessageResult(GetMessageStatus status, long nextBeginOffset, long minOffset, long maxOffset,
                               List<SelectedBuffer> messages, int bufferTotalSize, boolean suggestPullingFromSlave)
        implements AutoCloseable {

    public int messageCount() {
        return messages.size();
    }

    /** Releases every slice. */
    @Override
    public void close() {
        for (SelectedBuffer b : messages) {
            b.release();
        }
    }
}
