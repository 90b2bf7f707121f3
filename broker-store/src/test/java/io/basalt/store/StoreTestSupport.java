package io.basalt.store;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;


/** Small-file store configurations, a settable clock and a settable disk usage for MessageStore tests. */
final class StoreTestSupport {
    static final int COMMIT_LOG_FILE_SIZE = 64 * 1024;
    static final int CONSUME_QUEUE_FILE_SIZE = 100 * 20;

    private StoreTestSupport() {
    }

    static StoreConfig config(Path root, FlushDiskType flush) {
        return StoreConfig.builder().storePathRootDir(root.toString()).mappedFileSizeCommitLog(COMMIT_LOG_FILE_SIZE)
                .mappedFileSizeConsumeQueue(CONSUME_QUEUE_FILE_SIZE).flushDiskType(flush).warmMapedFileEnable(false)
                .flushIntervalCommitLog(10).cleanResourceInterval(3_600_000).deleteCommitLogFilesInterval(0)
                .destroyMapedFileIntervalForcibly(100).maxHashSlotNum(64).maxIndexNum(400).build();
    }

    static StoreEnvironment environment(SettableClock clock, AtomicReference<Double> diskUsage) {
        return StoreEnvironment.system().withClock(clock).withDiskUsage(dir -> diskUsage.get());
    }

    static BrokerMessage message(String topic, int queueId, String tags, String keys, String body) {
        Map<String, String> props = new LinkedHashMap<>();
        if (tags != null) {
            props.put(MessageProperties.TAGS, tags);
        }
        if (keys != null) {
            props.put(MessageProperties.KEYS, keys);
        }
        props.put(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX, "U-" + body);
        return BrokerMessage.builder().topic(topic).queueId(queueId).body(body.getBytes()).properties(props)
                .bornTimestamp(System.currentTimeMillis()).bornHost(new InetSocketAddress("127.0.0.1", 40000))
                .storeHost(new InetSocketAddress("127.0.0.1", 10911)).build();
    }

    /** The next {@code hour}:30 UTC at or after {@code from}. */
    /** A clock at noon UTC of the next day-hour boundary, so retention's deleteWhen never fires by accident. */
    static SettableClock noonClock() {
        return new SettableClock(nextHourUtc(Instant.now(), 12));
    }

    /** An ASYNC_FLUSH store in {@code root}, loaded and started: a test's restart after a stop or a crash. */
    static MessageStore openStarted(Path root, SettableClock clock, AtomicReference<Double> diskUsage) throws java.io.IOException {
        MessageStore store = MessageStore.open(config(root, FlushDiskType.ASYNC_FLUSH), environment(clock, diskUsage));
        store.load();
        store.start();
        return store;
    }

    /** After a test: shuts the store down (when it is open) and checks that every mapping was released. */
    static void shutdownAndCheckMappings(MessageStore store) {
        if (store != null) {
            store.shutdown();
        }
        org.junit.jupiter.api.Assertions.assertEquals(0, io.basalt.store.mappedfile.MappedFile.liveMappings(),
            "every mapping is released");
    }

    static Instant nextHourUtc(Instant from, int hour) {
        var t = from.atZone(ZoneOffset.UTC).withMinute(30).withSecond(0).withNano(0).withHour(hour);
        if (t.toInstant().isBefore(from)) {
            t = t.plusDays(1);
        }
        return t.toInstant();
    }

    /** A clock tests move by hand (UTC). */
    static final class SettableClock extends Clock {
        private volatile Instant now;

        SettableClock(Instant now) {
            this.now = now;
        }

        void set(Instant instant) {
            now = instant;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
