package io.basalt.store.mappedfile;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base of store tests that map files or start services: fails a test that leaves a mapping or a
 * thread behind. Extend it; it checks after every test.
 */
public abstract class LeakCheck {
    /** Threads the JVM or a library starts once and keeps for the process lifetime. */
    private static final Set<String> JVM_WIDE_THREADS = Set.of("process reaper", "JNA Cleaner", "Common-Cleaner");

    private int mappingsBefore;
    private Set<Thread> threadsBefore;

    @BeforeEach
    final void recordResources() {
        mappingsBefore = MappedFile.liveMappings();
        threadsBefore = Thread.getAllStackTraces().keySet();
    }

    @AfterEach
    final void checkNothingLeaked() {
        assertEquals(mappingsBefore, MappedFile.liveMappings(), "mappings left behind");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertEquals(Set.of(), newThreads(), "threads left behind"));
    }

    private Set<String> newThreads() {
        return Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.isAlive() && !threadsBefore.contains(t))
            .filter(t -> !JVM_WIDE_THREADS.contains(t.getName()) && !t.getName().startsWith("awaitility")
                && !t.getName().startsWith("ForkJoinPool"))
            .map(Thread::getName)
            .collect(Collectors.toSet());
    }
}
