package io.basalt.store.flush;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FaultInjectingFlushTargetTest {
    @TempDir
    Path dir;

    @Test
    void withoutTheSystemPropertyTheFlushTargetIsUnwrapped() {
        FakeFlushTarget fake = new FakeFlushTarget();
        assertTrue(System.getProperty(FaultInjectingFlushTarget.PROPERTY) == null);
        assertTrue(FaultInjectingFlushTarget.fromSystemProperty().apply(fake) == fake);
    }

    @Test
    void okForcesFailThrowsWithoutForcingAndStallHoldsForceUntilTheCommandChanges() throws Exception {
        Path control = dir.resolve("control");
        FakeFlushTarget fake = new FakeFlushTarget();
        FaultInjectingFlushTarget target = new FaultInjectingFlushTarget(fake, control);

        fake.append(100);
        assertEquals(100, target.flush(0), "no control file: forces as usual");

        write(control, "fail", 1);
        fake.append(100);
        assertThrows(IOException.class, () -> target.flush(0));
        assertEquals(100, fake.flushedOffset(), "a failed force does not force");

        write(control, "stall 60000", 2);
        CompletableFuture<Long> stalled = CompletableFuture.supplyAsync(() -> {
            try {
                return target.flush(0);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThrows(TimeoutException.class, () -> stalled.get(200, TimeUnit.MILLISECONDS), "stall returned early");
        assertEquals(100, fake.flushedOffset());
        write(control, "ok", 3);
        assertEquals(200, stalled.get(10, TimeUnit.SECONDS), "ok ends the stall and forces");
    }

    /** Writes {@code command} with a distinct modification time (coarse file system clocks). */
    private static void write(Path control, String command, int n) throws IOException {
        Files.writeString(control, command);
        Files.setLastModifiedTime(control, FileTime.fromMillis(1_000_000L * n));
    }
}
