package io.basalt.store.retention;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;

/** How full the partition holding a directory is. Injectable so tests can fake a full disk. */
@FunctionalInterface
public interface DiskUsageSource {
    /** Used fraction in [0, 1] of the partition holding {@code dir}. */
    double usedRatio(Path dir) throws IOException;

    /** The real file system: (total - usable) / total, as RocketMQ's getDiskPartitionSpaceUsedPercent. */
    static DiskUsageSource fileSystem() {
        return dir -> {
            FileStore store = Files.getFileStore(dir);
            long total = store.getTotalSpace();
            if (total <= 0) {
                return 0;
            }
            return (double) (total - store.getUsableSpace()) / total;
        };
    }
}
