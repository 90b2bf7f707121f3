package io.basalt.store.queue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.commitlog.MessageRecordEncoder;

/** An in-memory CommitLog of fixed-size "files" with RocketMQ's END_OF_FILE rule, for dispatcher tests. */
final class FakeLog implements DispatchSource {
    private final int fileSize;
    private final List<ByteBuffer> files = new ArrayList<>();
    private final Map<String, Long> queueOffsets = new HashMap<>();
    private final MessageRecordEncoder encoder = new MessageRecordEncoder();
    private long maxOffset;
    private volatile long limit = Long.MAX_VALUE;
    long storeTimestamp = 1_700_000_000_000L;

    FakeLog(int fileSize) {
        this.fileSize = fileSize;
    }

    static BrokerMessage message(String topic, int queueId, String tags, String keys, String uniqKey) {
        Map<String, String> props = new LinkedHashMap<>();
        if (tags != null) {
            props.put(MessageProperties.TAGS, tags);
        }
        if (keys != null) {
            props.put(MessageProperties.KEYS, keys);
        }
        if (uniqKey != null) {
            props.put(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX, uniqKey);
        }
        return BrokerMessage.builder().topic(topic).queueId(queueId).body(new byte[40]).properties(props)
                .bornTimestamp(1).bornHost(new InetSocketAddress("127.0.0.1", 1000))
                .storeHost(new InetSocketAddress("127.0.0.1", 10911)).build();
    }

    /** Appends and returns the record's offset. */
    synchronized long append(BrokerMessage m) {
        int length = MessageRecordEncoder.recordLength(m);
        if (files.isEmpty()) {
            files.add(ByteBuffer.allocate(fileSize));
        }
        ByteBuffer last = files.get(files.size() - 1);
        if (length + 8 > fileSize - last.position()) {
            int rest = fileSize - last.position();
            MessageRecordEncoder.writeEndOfFile(last, rest);
            last.position(fileSize);
            files.add(ByteBuffer.allocate(fileSize));
            maxOffset = (long) (files.size() - 1) * fileSize;
            last = files.get(files.size() - 1);
        }
        long offset = (long) (files.size() - 1) * fileSize + last.position();
        String key = m.topic() + "-" + m.queueId();
        long queueOffset = queueOffsets.getOrDefault(key, 0L);
        queueOffsets.put(key, queueOffset + 1);
        encoder.encode(m, offset, queueOffset, storeTimestamp++, last);
        maxOffset = offset + length;
        return offset;
    }

    synchronized ByteBuffer file(int i) {
        return files.get(i);
    }

    synchronized long maxOffset() {
        return maxOffset;
    }

    void limit(long limit) {
        this.limit = limit;
    }

    @Override
    public synchronized long dispatchLimit() {
        return Math.min(limit, maxOffset);
    }

    @Override
    public long minOffset() {
        return 0;
    }

    @Override
    public long nextFileOffset(long offset) {
        return offset - offset % fileSize + fileSize;
    }

    @Override
    public synchronized View read(long offset) {
        int index = (int) (offset / fileSize);
        if (index >= files.size()) {
            return null;
        }
        ByteBuffer file = files.get(index).duplicate();
        int end = index == files.size() - 1 ? (int) (maxOffset - (long) index * fileSize) : fileSize;
        file.limit(end).position((int) (offset % fileSize));
        ByteBuffer slice = file.slice();
        return new View() {
            @Override
            public ByteBuffer buffer() {
                return slice;
            }

            @Override
            public void close() {
            }
        };
    }
}
