package io.basalt.bench.queue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.basalt.store.GetMessageResult;
import io.basalt.store.GetMessageStatus;
import io.basalt.store.MessageStore;
import io.basalt.store.StoreConfig;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.SelectedBuffer;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Pull throughput from a warm store: 32-message getMessage calls walking one queue round and round,
 * each slice touched (its size and first byte) and released, as a pull processor does before it
 * hands the slices to the network. One op = one pull of 32 messages. {@code checkCrcOnRead=false}
 * shows what the read-time CRC check of each record costs.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class GetMessageBenchmark {
    private static final String TOPIC = "BenchTopic";

    @Param({"200000"})
    public int messages;

    @Param({"256"})
    public int bodySize;

    @Param({"true", "false"})
    public boolean checkCrcOnRead;

    private Path dir;
    private MessageStore store;
    private long next;

    @Setup(Level.Trial)
    public void setup() throws IOException {
        dir = Files.createTempDirectory("basalt-getmessage-bench");
        StoreConfig config = StoreConfig.builder().storePathRootDir(dir.toString())
                .mappedFileSizeCommitLog(64 * 1024 * 1024).warmMapedFileEnable(false)
                .maxHashSlotNum(1_000_003).maxIndexNum(4_000_000).checkCrcOnRead(checkCrcOnRead).build();
        store = MessageStore.open(config);
        store.load();
        store.start();
        byte[] body = new byte[bodySize];
        for (int i = 0; i < messages; i++) {
            BrokerMessage m = BrokerMessage.builder().topic(TOPIC).queueId(0).body(body)
                    .properties(Map.of(MessageProperties.TAGS, "TagA", MessageProperties.KEYS, "k" + i))
                    .bornTimestamp(System.currentTimeMillis()).bornHost(new InetSocketAddress("127.0.0.1", 40000))
                    .storeHost(new InetSocketAddress("127.0.0.1", 10911)).build();
            if (store.asyncPutMessage(m).join().status() != PutMessageStatus.PUT_OK) {
                throw new IllegalStateException("put failed at " + i);
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (store.getMaxOffsetInQueue(TOPIC, 0) < messages) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("dispatch did not catch up");
            }
            Thread.onSpinWait();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        store.shutdown();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Benchmark
    public int pull32(Blackhole bh) {
        long offset = next;
        try (GetMessageResult r = store.getMessage("bench", TOPIC, 0, offset, 32, null)) {
            if (r.status() != GetMessageStatus.FOUND) {
                next = 0;
                return 0;
            }
            for (SelectedBuffer b : r.messages()) {
                bh.consume(b.buffer().get(0));
            }
            bh.consume(r.bufferTotalSize());
            next = r.nextBeginOffset() >= messages ? 0 : r.nextBeginOffset();
            return r.messageCount();
        }
    }
}
