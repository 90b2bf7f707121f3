package io.basalt.bench.store;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.commitlog.MessageRecordDecoder;
import io.basalt.store.commitlog.MessageRecordEncoder;
import io.basalt.store.commitlog.RecordCrcCheck;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The read-time check of one CommitLog record held in direct memory (as a mapped file's slice is):
 * the pull path's {@link RecordCrcCheck} against the full {@link MessageRecordDecoder#check} with CRC,
 * which also decodes topic, tags, keys and UNIQ_KEY. One op = one record checked.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class RecordCheckBenchmark {
    @Param({"1024", "16384"})
    public int bodySize;

    /** With the record CRC ({@code enabledAppendPropCRC}) the lean check computes a second CRC over the whole record. */
    @Param({"false", "true"})
    public boolean recordCrc;

    private ByteBuffer record;
    private final MessageRecordDecoder decoder = new MessageRecordDecoder();

    @Setup
    public void setup() {
        BrokerMessage m = BrokerMessage.builder().topic("BenchTopic").queueId(0).body(new byte[bodySize])
            .properties(Map.of(MessageProperties.TAGS, "TagA", MessageProperties.KEYS, "k1",
                MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX, "7F00000100002A9F0000000000000001"))
            .bornTimestamp(System.currentTimeMillis()).bornHost(new InetSocketAddress("127.0.0.1", 40000))
            .storeHost(new InetSocketAddress("127.0.0.1", 10911)).recordCrc(recordCrc).build();
        ByteBuffer buffer = ByteBuffer.allocateDirect(bodySize + 1024);
        int length = new MessageRecordEncoder().encode(m, 0, 0, System.currentTimeMillis(), buffer);
        record = buffer.flip().slice(0, length).asReadOnlyBuffer();
    }

    @Benchmark
    public String leanCheck() {
        return RecordCrcCheck.damage(record);
    }

    @Benchmark
    public boolean decoderCheck() {
        return decoder.check(record.duplicate(), true).isOk();
    }
}
