package io.basalt.store.commitlog;

import io.basalt.store.BrokerMessage;

import java.nio.ByteBuffer;
import java.util.List;

import io.basalt.store.mappedfile.AppendCallback;

/**
 * Encodes one put (a message or a batch) in place at the append position, or, when the record would
 * not leave room for the END_OF_FILE marker, writes that marker over the rest of the file so the put
 * goes to the next file. One instance per CommitLog, used only under the put lock: it allocates
 * nothing.
 */
final class RecordAppender implements AppendCallback {
    private final MessageRecordEncoder encoder = new MessageRecordEncoder();

    private BrokerMessage single;
    private List<BrokerMessage> batch;
    private int length;
    private long queueOffset;
    private long storeTimestamp;

    /** Out: the last call wrote the END_OF_FILE marker instead of the record. */
    boolean endOfFile;
    /** Out: global offset where the record(s) start. */
    long physicalOffset;

    void prepare(BrokerMessage message, List<BrokerMessage> messages, int recordLength, long firstQueueOffset,
                 long timestamp) {
        this.single = message;
        this.batch = messages;
        this.length = recordLength;
        this.queueOffset = firstQueueOffset;
        this.storeTimestamp = timestamp;
        this.endOfFile = false;
    }

    void clear() {
        single = null;
        batch = null;
    }

    @Override
    public int doAppend(long writeOffset, ByteBuffer target) {
        int room = target.remaining();
        if (length + RecordFormat.END_FILE_MIN_BLANK_LENGTH > room) {
            MessageRecordEncoder.writeEndOfFile(target, room);
            endOfFile = true;
            return room;
        }
        endOfFile = false;
        physicalOffset = writeOffset;
        if (single != null) {
            return encoder.encode(single, writeOffset, queueOffset, storeTimestamp, target);
        }
        return encoder.encodeBatch(batch, writeOffset, queueOffset, storeTimestamp, target);
    }
}
