package io.basalt.store.recovery;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import io.basalt.store.FlushDiskType;
import io.basalt.store.BrokerMessage;
import io.basalt.store.commitlog.CommitLog;

/**
 * The child process of {@link CommitLogKillTest}: appends messages with SYNC_FLUSH (up to 16 in
 * flight, so group commit batches them) and prints {@code ACK <seq> <offset> <size> END} for each one
 * acknowledged PUT_OK, flushing stdout at once. Arguments: the store root and the first sequence number. Ends by itself after {@link #MAX_RUN_MS}, after
 * {@link #MAX_MESSAGES}, or when its parent is gone, so it can never outlive the test.
 */
public final class CrashChild {
    static final long MAX_RUN_MS = 120_000;
    static final int MAX_MESSAGES = 2_000_000;

    private CrashChild() {
    }

    /** The body of message {@code seq}: its number, then seeded random bytes of a seeded length. */
    static byte[] body(long seq) {
        Random random = new Random(seq);
        byte[] prefix = ("seq-" + seq + "-").getBytes(StandardCharsets.UTF_8);
        byte[] body = new byte[prefix.length + random.nextInt(2000)];
        random.nextBytes(body);
        System.arraycopy(prefix, 0, body, 0, prefix.length);
        return body;
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]);
        long firstSeq = Long.parseLong(args[1]);
        CommitLog log = CommitLog.open(CrashFiles.config(root, FlushDiskType.SYNC_FLUSH, false));
        log.load();
        log.start();
        InetSocketAddress host = new InetSocketAddress(InetAddress.getLoopbackAddress(), 10911);
        Optional<ProcessHandle> parent = ProcessHandle.current().parent();
        Semaphore inFlight = new Semaphore(16);
        long deadline = System.currentTimeMillis() + MAX_RUN_MS;
        for (long seq = firstSeq; seq < firstSeq + MAX_MESSAGES && System.currentTimeMillis() < deadline; seq++) {
            if (seq % 256 == 0 && parent.isPresent() && !parent.get().isAlive()) {
                break;
            }
            BrokerMessage m = BrokerMessage.builder().topic("KillTopic").queueId((int) (seq % 4)).body(body(seq))
                .propertiesString("KEYS\u0001seq" + seq + "\u0002").bornHost(host).storeHost(host)
                .bornTimestamp(System.currentTimeMillis()).build();
            if (!inFlight.tryAcquire(30, TimeUnit.SECONDS)) {
                break;
            }
            long s = seq;
            log.asyncPutMessage(m).whenComplete((r, e) -> {
                if (e == null && r.isOk()) {
                    String line = "ACK " + s + " " + r.appendResult().physicalOffset() + " "
                        + r.appendResult().wroteBytes() + " END";
                    synchronized (System.out) {
                        System.out.println(line);
                        System.out.flush();
                    }
                }
                inFlight.release();
            });
        }
        log.shutdown();
    }
}
