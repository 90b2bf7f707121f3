package io.basalt.ha;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.basalt.ha.master.HAService;
import io.basalt.ha.slave.HAClient;
import io.basalt.store.FlushDiskType;
import io.basalt.store.MessageStore;
import io.basalt.store.StoreConfig;
import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.PutMessageResult;
import io.basalt.store.mappedfile.StoreFiles;
import io.basalt.store.testing.TestMessages;
import io.basalt.store.testing.TestStores;

/** One store plus its HA endpoint (master service or slave client) for in-JVM replication tests. */
final class HANode implements AutoCloseable {
    static final int FILE_SIZE = 1024 * 1024;

    final Path root;
    final MessageStore store;
    final EpochFile epochs;
    HAService master;
    HAClient slave;

    private HANode(Path root, MessageStore store, EpochFile epochs) {
        this.root = root;
        this.store = store;
        this.epochs = epochs;
    }

    static HANode open(Path root, FlushDiskType flush) throws IOException {
        return open(root, flush, FILE_SIZE);
    }

    static HANode open(Path root, FlushDiskType flush, int fileSize) throws IOException {
        StoreConfig config = TestStores.config(root).mappedFileSizeCommitLog(fileSize).flushDiskType(flush)
            .maxHashSlotNum(1000).maxIndexNum(8000).build();
        MessageStore store = TestStores.start(config);
        return new HANode(root, store, EpochFile.open(root));
    }

    static HAConfig config() {
        return TestHAConfig.builder().build();
    }

    HANode asMaster(HAConfig config, boolean sync) throws IOException {
        master = new HAService(store, epochs, config, new Peer(0, "127.0.0.1:10911"), sync);
        master.start();
        return this;
    }

    HANode asSlave(HAConfig config, InetSocketAddress masterAddress) {
        slave = new HAClient(store, epochs, config, new Peer(1, "127.0.0.1:10921"), masterAddress);
        slave.start();
        return this;
    }

    HANode asSlave(HAConfig config, InetSocketAddress masterAddress, io.basalt.ha.slave.MasterLocator locator) {
        slave = new HAClient(store, epochs, config, new Peer(1, "127.0.0.1:10921"), masterAddress, locator);
        slave.start();
        return this;
    }

    InetSocketAddress haAddress() {
        return new InetSocketAddress("127.0.0.1", master.localPort());
    }

    static BrokerMessage message(String topic, int queueId, String body, int size, boolean wait) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put(MessageProperties.KEYS, body);
        if (!wait) {
            props.put(MessageProperties.WAIT_STORE_MSG_OK, "false");
        }
        byte[] bytes = new byte[size];
        byte[] tag = body.getBytes();
        System.arraycopy(tag, 0, bytes, 0, Math.min(tag.length, size));
        return TestMessages.message(topic, queueId, bytes).properties(props).build();
    }

    PutMessageResult put(String topic, int i, int size) {
        return store.asyncPutMessage(message(topic, i % 4, topic + "-" + i, size, true)).join();
    }

    List<PutMessageResult> putMany(String topic, int from, int count, int size) {
        List<PutMessageResult> out = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            out.add(put(topic, i, size));
        }
        return out;
    }

    /** The CommitLog bytes [min, max) of this node, concatenated in file order. */
    byte[] commitLogBytes(long from, long to) throws IOException {
        byte[] out = new byte[(int) (to - from)];
        List<Path> files;
        try (Stream<Path> s = Files.list(root.resolve("commitlog"))) {
            files = s.filter(p -> StoreFiles.parseFileName(p.getFileName().toString()) >= 0).sorted().toList();
        }
        for (Path p : files) {
            long base = StoreFiles.parseFileName(p.getFileName().toString());
            long lo = Math.max(base, from);
            long hi = Math.min(base + FILE_SIZE, to);
            if (lo >= hi) {
                continue;
            }
            byte[] all = Files.readAllBytes(p);
            System.arraycopy(all, (int) (lo - base), out, (int) (lo - from), (int) (hi - lo));
        }
        return out;
    }

    @Override
    public void close() {
        if (slave != null) {
            slave.shutdown();
        }
        if (master != null) {
            master.shutdown();
        }
        store.shutdown();
    }
}
