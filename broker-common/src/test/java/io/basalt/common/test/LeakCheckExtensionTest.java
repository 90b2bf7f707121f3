package io.basalt.common.test;

import java.time.Duration;

import static org.awaitility.Awaitility.await;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.Selector;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeakCheckExtensionTest {
    @TempDir
    Path dir;

    @Test
    void anOpenFileIsLeftBehindUntilClosed() throws Exception {
        Path file = Files.write(dir.resolve("f"), new byte[] {1});
        LeakCheckExtension.Snapshot before = LeakCheckExtension.Snapshot.take();
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
        assertTrue(before.leftBehind(LeakCheckExtension.Snapshot.take()).contains("open files: [" + file.toRealPath()),
            "an open channel is reported");
        ch.close();
        assertEquals("", before.leftBehind(LeakCheckExtension.Snapshot.take()));
    }

    @Test
    void aMappingIsLeftBehindUntilUnmapped() throws Exception {
        Path file = Files.write(dir.resolve("m"), new byte[4096]);
        LeakCheckExtension.Snapshot before = LeakCheckExtension.Snapshot.take();
        MappedByteBuffer mapped;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, 4096);
        }
        assertTrue(before.leftBehind(LeakCheckExtension.Snapshot.take()).contains("mapped files: [" + file.toRealPath()),
            "a mapping outlives its channel and is reported");
        unmap(mapped);
        assertEquals("", before.leftBehind(LeakCheckExtension.Snapshot.take()));
    }

    @Test
    void aSocketIsLeftBehindUntilClosed() throws Exception {
        LeakCheckExtension.Snapshot before = LeakCheckExtension.Snapshot.take();
        ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        assertTrue(before.leftBehind(LeakCheckExtension.Snapshot.take()).contains("socket:["));
        socket.close();
        assertEquals("", before.leftBehind(LeakCheckExtension.Snapshot.take()));
    }

    @Test
    void aSelectorIsReportedWithWhatItWatches() throws Exception {
        LeakCheckExtension.Snapshot before = LeakCheckExtension.Snapshot.take();
        // assumes no selector is open before: the report of a leaked epoll lists every epoll instance
        Selector selector = Selector.open();
        try {
            String report = before.leftBehind(LeakCheckExtension.Snapshot.take());
            assertTrue(report.contains("anon_inode:[eventpoll]"), report);
            assertTrue(report.contains("epoll instances: [fd "), report);
            assertTrue(report.contains("watches [anon_inode:[eventfd]]"), "an unused selector watches its own wake-up fd: " + report);
        } finally {
            selector.close();
        }
        assertEquals("", before.leftBehind(LeakCheckExtension.Snapshot.take()));
    }

    @Test
    void aThreadIsLeftBehindUntilItEnds() throws Exception {
        LeakCheckExtension.Snapshot before = LeakCheckExtension.Snapshot.take();
        CountDownLatch stop = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            try {
                stop.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "GroupCommitService");
        t.start();
        String leftBehind;
        try {
            // the report names where the thread is: wait until it is parked in the lambda, not still starting
            await().atMost(Duration.ofSeconds(10)).until(() -> t.getState() == Thread.State.WAITING);
            leftBehind = before.leftBehind(LeakCheckExtension.Snapshot.take());
        } finally {
            stop.countDown();
            t.join();
        }
        assertTrue(leftBehind.startsWith("threads: [GroupCommitService in io.basalt.common.test.LeakCheckExtensionTest.lambda$"),
            leftBehind);
        assertEquals("", before.leftBehind(LeakCheckExtension.Snapshot.take()));
    }

    @Test
    void lifetimeThreadsOfTheJvmAndNettyAreAllowed() {
        assertTrue(LeakCheckExtension.isLifetimeThread("globalEventExecutor-1-1"));
        assertTrue(LeakCheckExtension.isLifetimeThread("ForkJoinPool.commonPool-worker-1"));
        assertFalse(LeakCheckExtension.isLifetimeThread("NettyServerNIOSelector_3_1"));
        assertFalse(LeakCheckExtension.isLifetimeThread("HAClient"));
    }

    /** Unmaps now, as the store's Unmapper does, instead of waiting for the GC. */
    private static void unmap(MappedByteBuffer buffer) throws Exception {
        Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
        Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
        theUnsafe.setAccessible(true);
        Method invokeCleaner = unsafeClass.getMethod("invokeCleaner", java.nio.ByteBuffer.class);
        invokeCleaner.invoke(theUnsafe.get(null), buffer);
    }
}
