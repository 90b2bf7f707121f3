package io.basalt.broker.processor;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * UNIQ_KEY for messages whose producer sent none, in the layout of RocketMQ's MessageClientIDSetter:
 * host address, pid (2 bytes), a per-process hash (4), milliseconds since start (4), counter (2); upper-case hex.
 */
final class UniqueIdGenerator {
    private final byte[] prefix;
    private final long startMillis = System.currentTimeMillis();
    private final AtomicInteger counter = new AtomicInteger();

    UniqueIdGenerator(InetSocketAddress host) {
        byte[] address = host.getAddress().getAddress();
        ByteBuffer b = ByteBuffer.allocate(address.length + 2 + 4);
        b.put(address).putShort((short) ProcessHandle.current().pid()).putInt(System.identityHashCode(this));
        this.prefix = b.array();
    }

    String next() {
        ByteBuffer b = ByteBuffer.allocate(prefix.length + 4 + 2);
        b.put(prefix).putInt((int) (System.currentTimeMillis() - startMillis)).putShort((short) counter.getAndIncrement());
        return HexFormat.of().withUpperCase().formatHex(b.array());
    }
}
