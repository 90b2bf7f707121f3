package io.basalt.bench.filter;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.basalt.broker.client.SubscriptionData;
import io.basalt.broker.filter.SqlFilter;
import io.basalt.broker.filter.SqlFilterException;
import io.basalt.store.BrokerMessage;
import io.basalt.store.GetMessageResult;
import io.basalt.store.GetMessageStatus;
import io.basalt.store.MessageFilter;
import io.basalt.store.MessageProperties;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageStatus;
import io.basalt.store.SelectedBuffer;
import io.basalt.store.StoreConfig;

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
 * Filtered pulls from a warm store, a tag filter and a SQL92 selector that each match one message in five:
 * {@code TAGS} is {@code T0}..{@code T4} in turn and the tag filter asks for {@code T0}; {@code a} is the
 * index mod 10 and {@code region} alternates eu/us, and the selector asks for {@code a > 5 AND region = 'eu'}
 * (indexes ending in 6 and 8). One op = one getMessage of up to 32 matching messages walking the queue
 * round and round, so about 160 entries looked at; the tag filter skips the records of the others
 * unread, the selector reads each record's properties.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class FilteredPullBenchmark {
    private static final String TOPIC = "BenchTopic";

    @Param({"tag", "sql"})
    public String filter;

    @Param({"100000"})
    public int messages;

    private Path dir;
    private MessageStore store;
    private MessageFilter messageFilter;
    private long next;

    @Setup(Level.Trial)
    public void setup() throws IOException, SqlFilterException {
        messageFilter = switch (filter) {
            case "tag" -> SubscriptionData.ofTags(TOPIC, "T0", 0)::matchesTagsCode;
            case "sql" -> SqlFilter.compile("a > 5 AND region = 'eu'");
            default -> throw new IllegalArgumentException(filter);
        };
        dir = Files.createTempDirectory("basalt-filtered-pull-bench");
        StoreConfig config = StoreConfig.builder().storePathRootDir(dir.toString())
                .mappedFileSizeCommitLog(64 * 1024 * 1024).warmMapedFileEnable(false)
                .maxHashSlotNum(1_000_003).maxIndexNum(4_000_000).build();
        store = MessageStore.open(config);
        store.load();
        store.start();
        byte[] body = new byte[256];
        for (int i = 0; i < messages; i++) {
            BrokerMessage m = BrokerMessage.builder().topic(TOPIC).queueId(0).body(body)
                    .properties(Map.of(MessageProperties.TAGS, "T" + (i % 5), MessageProperties.KEYS, "k" + i,
                        "a", Integer.toString(i % 10), "region", i % 2 == 0 ? "eu" : "us"))
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
        try (GetMessageResult r = store.getMessage("bench", TOPIC, 0, next, 32, messageFilter)) {
            next = r.nextBeginOffset() >= messages ? 0 : r.nextBeginOffset();
            if (r.status() != GetMessageStatus.FOUND) {
                return 0;
            }
            for (SelectedBuffer b : r.messages()) {
                bh.consume(b.buffer().get(0));
            }
            return r.messageCount();
        }
    }
}
