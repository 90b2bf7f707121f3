package io.basalt.common.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

class CloseablesTest {
    private final List<String> closed = new ArrayList<>();

    private Closeable ok(String name) {
        return () -> closed.add(name);
    }

    private Closeable failing(String name, IOException e) {
        return () -> {
            closed.add(name);
            throw e;
        };
    }

    @Test
    void closesEverythingInOrderAndSkipsNulls() throws IOException {
        Closeables.closeAll(ok("a"), null, ok("b"));
        assertEquals(List.of("a", "b"), closed);
    }

    @Test
    void keepsGoingAfterAFailureAndThrowsTheFirstWithTheOthersSuppressed() {
        IOException first = new IOException("first");
        IOException second = new IOException("second");
        IOException thrown = assertThrows(IOException.class,
            () -> Closeables.closeAll(failing("a", first), ok("b"), failing("c", second)));
        assertSame(first, thrown);
        assertArrayEquals(new Throwable[] {second}, thrown.getSuppressed());
        assertEquals(List.of("a", "b", "c"), closed);
    }

    @Test
    void closerIsAppliedToEachItem() {
        IOException e = new IOException("flush failed");
        List<String> items = List.of("x", "y");
        IOException thrown = assertThrows(IOException.class, () -> Closeables.closeAll(items, item -> {
            closed.add(item);
            if (item.equals("x")) {
                throw e;
            }
        }));
        assertSame(e, thrown);
        assertEquals(items, closed);
    }

    @Test
    void closeAllAfterAttachesEveryCloseFailureToThePrimary() {
        IOException primary = new IOException("open failed");
        IOException closeError = new IOException("close failed");
        Closeables.closeAllAfter(primary, Arrays.asList(failing("a", closeError), null, ok("b")), Closeable::close);
        assertEquals(List.of("a", "b"), closed);
        assertArrayEquals(new Throwable[] {closeError}, primary.getSuppressed());
    }
}
