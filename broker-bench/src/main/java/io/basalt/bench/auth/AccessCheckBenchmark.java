package io.basalt.bench.auth;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.basalt.broker.auth.AccessControl;
import io.basalt.broker.auth.AuthCounters;
import io.basalt.broker.auth.PlainAclFiles;
import io.basalt.broker.auth.RequestSignature;
import io.basalt.broker.config.BrokerConfiguration;
import io.basalt.broker.config.ConfigException;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;

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

/**
 * What the broker's access check costs one send: a SEND_MESSAGE_V2 with the header fields the official 5.2.0
 * client puts on a send, {@code AccessKey} and {@code Signature}, and a body of {@code bodySize} bytes, checked by
 * ACL 1.0 (signature, then the topic's PUB permission) from an address no white list names. The request is the same
 * object every time, as the gate reads it without changing it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class AccessCheckBenchmark {
    private static final String ACL = """
        globalWhiteRemoteAddresses: []
        accounts:
          - accessKey: benchProducer
            secretKey: benchSecret1
            admin: false
            defaultTopicPerm: DENY
            defaultGroupPerm: SUB
            topicPerms:
              - BenchTopic=PUB|SUB
        """;

    @Param({"128", "1024"})
    public int bodySize;

    private Path dir;
    private AccessControl gate;
    private RemotingCommand send;
    private final RequestContext context = new RequestContext(null, new InetSocketAddress("10.1.2.3", 40000),
        new InetSocketAddress("10.1.2.4", 10911), 0);

    @Setup(Level.Trial)
    public void setup() throws IOException, ConfigException {
        dir = Files.createTempDirectory("basalt-access-check-bench");
        Path file = dir.resolve("conf/plain_acl.yml");
        Files.createDirectories(file.getParent());
        Files.writeString(file, ACL);
        PlainAclFiles files = PlainAclFiles.load(file, dir.resolve("conf/acl"), System::currentTimeMillis);
        gate = AccessControl.open(BrokerConfiguration.of(Map.of("aclEnable", "true")).security(), files,
            dir.resolve("config"), new AuthCounters(), System::currentTimeMillis);
        // the fields of the official client's SendMessageRequestHeaderV2, as it sends them
        HashMap<String, String> fields = new HashMap<>(Map.ofEntries(Map.entry("a", "mqbench_producer"),
            Map.entry("b", "BenchTopic"), Map.entry("c", "TBW102"), Map.entry("d", "4"), Map.entry("e", "3"),
            Map.entry("f", "0"), Map.entry("g", "1765000000000"), Map.entry("h", "0"),
            Map.entry("i", "UNIQ_KEY\u0001AC11000100002A9F0000000000000000\u0002WAIT\u0001true\u0002"),
            Map.entry("j", "0"), Map.entry("k", "false"), Map.entry("m", "false"),
            Map.entry("bname", "broker-a")));
        byte[] body = new byte[bodySize];
        fields.put(RequestSignature.ACCESS_KEY, "benchProducer");
        fields.put(RequestSignature.SIGNATURE, RequestSignature.sign("benchSecret1", fields, body));
        send = RemotingCommand.request(RequestCode.SEND_MESSAGE_V2);
        send.setExtFields(fields);
        send.setBody(body);
        send.setVersion(453);
        if (gate.refuse(send, context) != null) {
            throw new IllegalStateException("the benchmark's send is refused: " + gate.refuse(send, context));
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Benchmark
    public RemotingCommand signedSend() {
        return gate.refuse(send, context);
    }
}
