package io.basalt.store.mappedfile;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base of store tests that map files or start services: fails a test that leaves a mapping, an
 * open file descriptor or a thread behind. Extend it; it checks after every test.
 */
public abstract class LeakCheck {
    /** Threads the JVM or a library starts once and keeps for the process lifetime. */
    private static final Set<String> JVM_WIDE_THREADS = Set.of("process reaper", "JNA Cleaner", "Common-Cleaner");

    private int mappingsBefore;
    private Set<String> openFilesBefore;
    private Set<Thread> threadsBefore;

    @BeforeEach
    final void recordResources() {
        mappingsBefore = MappedFile.liveMappings();
        openFilesBefore = openFiles();
        threadsBefore = Thread.getAllStackTraces().keySet();
    }

    @AfterEach
    final void checkNothingLeaked() {
        assertEquals(mappingsBefore, MappedFile.liveMappings(), "mappings left behind");
        Set<String> opened = new java.util.HashSet<>(openFiles());
        opened.removeAll(openFilesBefore);
        assertEquals(Set.of(), opened, "files left open");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertEquals(Set.of(), newThreads(), "threads left behind"));
    }

    /**
     * Files this process has open, except those opened once per JVM on first use: the jars of the
     * class path, the JDK's own files, libffi's trampoline file (opened by JNA's first call), and
     * kernel pseudo-files (the JVM's container metrics read cgroup files under /sys at any time).
     */
    private static Set<String> openFiles() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.map(LeakCheck::target)
                .filter(t -> t.startsWith("/") && !t.startsWith("/sys/") && !t.startsWith("/proc/") && !t.startsWith("/dev/")
                    && !t.endsWith(".jar") && !t.startsWith(System.getProperty("java.home"))
                    && !Path.of(t).getFileName().toString().startsWith("ffi"))
                .collect(Collectors.toSet());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String target(Path fd) {
        try {
            return Files.readSymbolicLink(fd).toString();
        } catch (IOException e) {
            return "";   // closed between listing and reading
        }
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
