package io.basalt.bench.remoting;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

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

import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RemotingCommandException;

/**
 * The JSON header of every request and response (the 5.x client's default serialization): decoding a
 * SEND_MESSAGE_V2 header as an official producer writes it, and encoding a send response's header.
 * Both run on Netty's event loop once per message, so they are part of the broker's CPU per message.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
public class HeaderCodecBenchmark {
    private ByteBuffer sendRequestFrame;

    @Setup
    public void setUp() {
        RemotingCommand request = RemotingCommand.request(310);
        request.putExtField("a", "ProducerGroupName");
        request.putExtField("b", "BenchTopic");
        request.putExtField("c", "TBW102");
        request.putExtField("d", "4");
        request.putExtField("e", "3");
        request.putExtField("f", "0");
        request.putExtField("g", "1764610000000");
        request.putExtField("h", "0");
        request.putExtField("i", "UNIQ_KEY\u0001AC110001000018B4AAC2A1B2C3D4E5F60000\u0002WAIT\u0001true\u0002");
        request.putExtField("j", "0");
        request.putExtField("k", "false");
        request.putExtField("m", "false");
        request.putExtField("n", "broker-a");
        byte[] frame = request.encodeFramePrefix();
        sendRequestFrame = ByteBuffer.wrap(frame, 4, frame.length - 4).slice();
    }

    @Benchmark
    public RemotingCommand decodeSendRequest() throws RemotingCommandException {
        return RemotingCommand.decode(sendRequestFrame.duplicate());
    }

    @Benchmark
    public byte[] encodeSendResponse() {
        RemotingCommand response = RemotingCommand.request(0);
        response.putExtField("msgId", "7F00000100002A9F00000000000A1B2C");
        response.putExtField("queueId", "3");
        response.putExtField("queueOffset", "123456");
        response.putExtField("MSG_REGION", "DefaultRegion");
        response.putExtField("TRACE_ON", "true");
        return response.encodeFramePrefix();
    }
}
