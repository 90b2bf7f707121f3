package io.basalt.bench.filter;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.basalt.broker.client.SubscriptionData;
import io.basalt.broker.filter.SqlFilter;
import io.basalt.broker.filter.SqlFilterException;
import io.basalt.store.MessageFilter;
import io.basalt.store.MessageProperties;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What filtering costs per message on the pull path. Tag filtering compares the ConsumeQueue entry's tags
 * code and never reads the record; a SQL92 selector reads the properties of the stored record (one pass
 * over its bytes, as the store hands them to {@link MessageFilter#isMatchedByCommitLog}) and evaluates.
 * The properties are those of a message sent by the 5.2.0 client with two user properties (UNIQ_KEY,
 * KEYS, TAGS, WAIT, a, b, region and the record CRC Basalt appends). One op = one message.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class MessageFilterBenchmark {
    private ByteBuffer properties;
    private long tagsCode;
    private MessageFilter tag;
    private SqlFilter andOfTwo;
    private SqlFilter tagsIn;
    private SqlFilter missing;

    @Setup
    public void setup() throws SqlFilterException {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("a", "7");
        p.put("b", "x");
        p.put("region", "eu");
        p.put(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX, "7F0000010F2A18B4AAC2812D3E4F0000");
        p.put(MessageProperties.KEYS, "order-4711");
        p.put(MessageProperties.TAGS, "TagB");
        p.put(MessageProperties.WAIT_STORE_MSG_OK, "true");
        p.put("__CRC32#", "1234567890");
        properties = ByteBuffer.wrap(MessageProperties.toPropertiesString(p).getBytes(StandardCharsets.UTF_8))
            .asReadOnlyBuffer();
        tagsCode = MessageProperties.tagsCode("TagB");
        tag = SubscriptionData.ofTags("T", "TagA || TagB", 0)::matchesTagsCode;
        andOfTwo = SqlFilter.compile("a > 5 AND b = 'x'");
        tagsIn = SqlFilter.compile("TAGS IN ('TagA', 'TagB')");
        missing = SqlFilter.compile("c > 5");
        if (!tag.isMatchedByConsumeQueue(tagsCode) || !andOfTwo.isMatchedByCommitLog(properties)
            || !tagsIn.isMatchedByCommitLog(properties) || missing.isMatchedByCommitLog(properties)) {
            throw new IllegalStateException("the filters do not decide as intended");
        }
    }

    /** Tag filtering: the ConsumeQueue entry's tags code against the subscription's codes. */
    @Benchmark
    public boolean tagsCode() {
        return tag.isMatchedByConsumeQueue(tagsCode);
    }

    @Benchmark
    public boolean sqlAGreaterAndBEquals() {
        return andOfTwo.isMatchedByCommitLog(properties);
    }

    @Benchmark
    public boolean sqlTagsIn() {
        return tagsIn.isMatchedByCommitLog(properties);
    }

    /** A selector on a property the message does not have: unknown, no match. */
    @Benchmark
    public boolean sqlMissingProperty() {
        return missing.isMatchedByCommitLog(properties);
    }
}
