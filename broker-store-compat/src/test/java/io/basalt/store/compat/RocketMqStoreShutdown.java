package io.basalt.store.compat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.rocketmq.store.ConsumeQueue;
import org.apache.rocketmq.store.DefaultMessageStore;
import org.apache.rocketmq.store.MappedFileQueue;
import org.apache.rocketmq.store.ReferenceResource;
import org.apache.rocketmq.store.index.IndexFile;
import org.apache.rocketmq.store.index.IndexService;
import org.apache.rocketmq.store.logfile.MappedFile;
import org.apache.rocketmq.store.queue.ConsumeQueueInterface;

/**
 * Shuts a RocketMQ 5.2.0 {@link DefaultMessageStore} down and then releases what its
 * {@code shutdown()} leaves to the garbage collector, so that the leak check sees the store's files
 * unmapped and closed as it sees Basalt's. RocketMQ's shutdown stops the services but keeps every
 * commit log and consume queue file mapped and every file channel open, the index files' included
 * (its {@code IndexService.shutdown()} unmaps them, forgets them, and never closes their channels).
 * The files stay on disk: the other store opens them next. Called on the test thread, after the
 * test released every RocketMQ result it read.
 */
final class RocketMqStoreShutdown {
    private RocketMqStoreShutdown() {
    }

    static void shutdown(DefaultMessageStore store) throws Exception {
        List<MappedFile> indexFiles = indexFiles(store);   // shutdown() forgets them
        store.shutdown();
        store.getBrokerStatsManager().shutdown();   // its stats threads are not the store's to stop

        List<MappedFile> mapped = new ArrayList<>(store.getCommitLog().getMappedFileQueue().getMappedFiles());
        for (Map<Integer, ConsumeQueueInterface> queues : store.getConsumeQueueTable().values()) {
            for (ConsumeQueueInterface queue : queues.values()) {
                // 5.2.0's ConsumeQueue has no accessor for its files
                mapped.addAll(((MappedFileQueue) readField(ConsumeQueue.class, "mappedFileQueue", queue)).getMappedFiles());
            }
        }
        for (MappedFile file : mapped) {
            // RocketMQ's own way to unmap: the first shutdown() drops the file's own reference and
            // unmaps once no reader holds it. It forces an unmap only when called again, which this never does.
            file.shutdown(Long.MAX_VALUE);
            if (!((ReferenceResource) file).isCleanupOver()) {
                throw new IllegalStateException(file.getFileName() + " is still held by a reader the test did not release");
            }
        }
        List<MappedFile> withChannels = new ArrayList<>(mapped);
        withChannels.addAll(indexFiles);
        IOException failure = null;
        for (MappedFile file : withChannels) {
            try {
                file.getFileChannel().close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * The mapped files of the index files {@code store} has open. 5.2.0 has no accessor for them, so
     * this reads the fields {@code DefaultMessageStore.indexService}, {@code IndexService.indexFileList}
     * and {@code IndexFile.mappedFile}. The store is idle by then (everything dispatched), so no index
     * file is being added to the list.
     */
    private static List<MappedFile> indexFiles(DefaultMessageStore store) throws ReflectiveOperationException {
        IndexService indexService = (IndexService) readField(DefaultMessageStore.class, "indexService", store);
        List<MappedFile> files = new ArrayList<>();
        for (Object indexFile : (List<?>) readField(IndexService.class, "indexFileList", indexService)) {
            files.add((MappedFile) readField(IndexFile.class, "mappedFile", indexFile));
        }
        return files;
    }

    private static Object readField(Class<?> type, String name, Object target) throws ReflectiveOperationException {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field.get(target);
    }
}
