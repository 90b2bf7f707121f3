package io.basalt.store.queue;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.basalt.store.flush.FailStop;
import io.basalt.store.index.IndexService;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dispatcher on a really full disk (a 1 MiB tmpfs the test mounts; root only): a new ConsumeQueue
 * or index file cannot get its blocks, which is an IOException (never SIGBUS), dispatch pauses with
 * {@link ReputMessageService#writeBlocked()} set and nothing published past the last good entry, and
 * it resumes by itself once space is freed, with every entry in place.
 */
class DispatchOnFullDiskTest {
    @TempDir
    Path dir;
    private Path mount;
    private boolean mounted;
    private ConsumeQueueStore queues;
    private IndexService index;
    private final FakeLog log = new FakeLog(4096);

    @BeforeEach
    void mountTmpfs() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "mounting a tmpfs needs root");
        mount = Files.createDirectory(dir.resolve("small"));
        mounted = run("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mount.toString()) == 0;
        assumeTrue(mounted, "mount -t tmpfs failed");
    }

    @AfterEach
    void unmount() throws Exception {
        if (queues != null) {
            queues.close();
        }
        if (index != null) {
            index.close();
        }
        if (mounted) {
            run("umount", mount.toString());
        }
    }

    @Test
    void aFullDiskPausesDispatchWithoutSigbusAndItResumesOnceSpaceIsFreed() throws Exception {
        queues = ConsumeQueueStore.open(mount.resolve("consumequeue"), 1000 * 20);
        index = IndexService.open(mount.resolve("index"), 64, 256, Clock.systemDefaultZone());
        ReputMessageService reput = new ReputMessageService(log, queues, index, null, 0, 1000, new FailStop());
        log.append(FakeLog.message("A", 0, "t", "k0", "U0"));
        assertEquals(1, reput.doWork());
        long dispatched = reput.reputFromOffset();

        Path placeholder = fill(mount.resolve("placeholder"));
        for (int i = 1; i <= 5; i++) {
            log.append(FakeLog.message("B" + i, 0, "t", "k" + i, "U" + i));  // each needs a new queue file
        }
        assertEquals(0, reput.doWork());
        assertNotNull(reput.writeBlocked(), "dispatch names why it cannot write");
        assertTrue(reput.writeBlocked().contains("No space left on device"), reput.writeBlocked());
        assertNull(reput.alarm(), "a full disk is not a bad record: dispatch is paused, not stopped");
        assertEquals(dispatched, reput.reputFromOffset(), "nothing published past the last written entry");

        Files.delete(placeholder);
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            reput.doWork();
            return reput.writeBlocked() == null && reput.reputFromOffset() == log.maxOffset();
        });
        for (int i = 1; i <= 5; i++) {
            assertEquals(1, queues.find("B" + i, 0).maxOffset(), "B" + i + " got its entry after the disk had room");
        }
        assertEquals(1, queues.find("A", 0).maxOffset());
    }

    /** Writes a file until the filesystem is full; returns it. */
    private static Path fill(Path file) throws IOException {
        byte[] chunk = new byte[4096];
        try (OutputStream out = Files.newOutputStream(file)) {
            while (true) {
                out.write(chunk);
                out.flush();
            }
        } catch (IOException e) {
            if (!String.valueOf(e.getMessage()).contains("No space left")) {
                throw e;
            }
        }
        return file;
    }

    private static int run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), String.join(" ", command) + " did not end");
        return p.exitValue();
    }
}
