package io.basalt.ha;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.basalt.store.mappedfile.MappedFile;

/**
 * Fails a test that leaves an HA, store-service or proxy thread running, or a CommitLog mapping
 * open, once everything it opened was closed.
 */
final class NoLeakedThreads implements AfterEachCallback {
    private static final List<String> PREFIXES = List.of("HAClient", "HAConnection_", "HAAcceptService",
        "GroupTransferService", "proxy-", "ReputMessageService", "FlushRealTimeService", "GroupCommitService",
        "AllocateMappedFileService");

    @Override
    public void afterEach(ExtensionContext context) {
        await().atMost(ofSeconds(10)).until(() -> leaked().isEmpty());
        await().atMost(ofSeconds(10)).until(() -> MappedFile.liveMappings() == 0);
    }

    static Set<String> leaked() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
            .filter(name -> PREFIXES.stream().anyMatch(name::startsWith)).collect(Collectors.toSet());
    }
}
