package io.basalt.store.testing;

import java.io.IOException;
import java.nio.file.Path;

import io.basalt.store.FlushDiskType;
import io.basalt.store.MessageStore;
import io.basalt.store.StoreEnvironment;
import io.basalt.store.StoreConfig;

/**
 * Real stores for the tests of every module (HA, processors, metrics) in a test's own directory:
 * small files, no warm-up, ASYNC_FLUSH flushed every 10 ms, small index files. Tests adjust the
 * returned builder for what they check and shut the store down themselves.
 */
public final class TestStores {
    /** CommitLog file size of test stores. */
    public static final int COMMIT_LOG_FILE_SIZE = 1024 * 1024;
    /** ConsumeQueue file size of test stores: 6,000 entries. */
    public static final int CONSUME_QUEUE_FILE_SIZE = 6000 * 20;

    private TestStores() {
    }

    /**
     * The test store configuration rooted at {@code root}, to adjust before {@code build()}; its index
     * files have 64 slots and 400 entries, enough for a test and quick to create.
     */
    public static StoreConfig.Builder config(Path root) {
        return StoreConfig.builder().storePathRootDir(root.toString()).mappedFileSizeCommitLog(COMMIT_LOG_FILE_SIZE)
            .mappedFileSizeConsumeQueue(CONSUME_QUEUE_FILE_SIZE).flushDiskType(FlushDiskType.ASYNC_FLUSH)
            .warmMapedFileEnable(false).flushIntervalCommitLog(10).maxHashSlotNum(64).maxIndexNum(400);
    }

    /** Opens, loads and starts a store with this machine's clock and disk; the caller shuts it down. */
    public static MessageStore start(StoreConfig config) throws IOException {
        return start(config, StoreEnvironment.system());
    }

    /** Opens, loads and starts a store; the caller shuts it down. */
    public static MessageStore start(StoreConfig config, StoreEnvironment environment) throws IOException {
        MessageStore store = MessageStore.open(config, environment);
        try {
            store.load();
            store.start();
        } catch (IOException | RuntimeException e) {
            store.shutdown();
            throw e;
        }
        return store;
    }
}
