package io.basalt.store.flush;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.function.UnaryOperator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * <b>Test seam, never for production.</b> A {@link FlushTarget} that stalls or fails the CommitLog's
 * force() on command, so process tests can show what a slow or failing disk does to a whole broker.
 * It is active only when the JVM runs with the internal system property {@value #PROPERTY} naming a
 * control file (no broker.conf key can turn it on); {@link #fromSystemProperty()} then logs a WARN.
 *
 * <p>The control file holds one command, re-read whenever its modification time or size changes (one
 * stat per force otherwise): {@code ok} (or no file) forces as usual; {@code stall <ms>} makes each
 * force wait up to {@code ms} before forcing, ending the wait early once the command changes; {@code fail}
 * makes each force throw an {@link IOException}, as a failed fsync would. Called on the flush service's
 * thread only (the {@link FlushTarget} contract).
 */
public final class FaultInjectingFlushTarget implements FlushTarget {
    /** The JVM system property naming the control file. */
    public static final String PROPERTY = "basalt.test.faultInjection";

    private static final Logger LOG = LoggerFactory.getLogger(FaultInjectingFlushTarget.class);
    private static final long POLL_MS = 10;

    private final FlushTarget delegate;
    private final Path control;
    private FileTime seenTime;
    private long seenSize = -1;
    private String command = "ok";

    FaultInjectingFlushTarget(FlushTarget delegate, Path control) {
        this.delegate = delegate;
        this.control = control;
    }

    /** The wrapper {@value #PROPERTY} asks for, or the identity when it is not set. */
    public static UnaryOperator<FlushTarget> fromSystemProperty() {
        String file = System.getProperty(PROPERTY);
        if (file == null || file.isBlank()) {
            return UnaryOperator.identity();
        }
        Path control = Path.of(file);
        LOG.warn("Fault injection is active: CommitLog force() obeys the test control file {} (system property {}); "
            + "never run a production broker like this", control, PROPERTY);
        return target -> new FaultInjectingFlushTarget(target, control);
    }

    @Override
    public long commit(int leastPages) throws IOException {
        return delegate.commit(leastPages);
    }

    @Override
    public long flush(int leastPages) throws IOException {
        String current = command();
        if (current.startsWith("stall")) {
            long deadline = System.currentTimeMillis() + Long.parseLong(current.substring(5).trim());
            while (System.currentTimeMillis() < deadline && command().equals(current)) {
                try {
                    Thread.sleep(POLL_MS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            current = command();
        }
        if (current.equals("fail")) {
            throw new IOException("injected fsync failure (" + PROPERTY + ")");
        }
        return delegate.flush(leastPages);
    }

    /** The command in the control file, re-read when the file changed. */
    private String command() {
        try {
            FileTime time = Files.getLastModifiedTime(control);
            long size = Files.size(control);
            if (!time.equals(seenTime) || size != seenSize) {
                seenTime = time;
                seenSize = size;
                command = Files.readString(control, StandardCharsets.US_ASCII).trim();
            }
        } catch (NoSuchFileException e) {
            seenTime = null;
            seenSize = -1;
            command = "ok";
        } catch (IOException e) {
            LOG.warn("cannot read the fault injection control file {}: {}", control, e.toString());
        }
        return command;
    }

    @Override
    public long flushedOffset() {
        return delegate.flushedOffset();
    }

    @Override
    public long committedOffset() {
        return delegate.committedOffset();
    }

    @Override
    public long appendedOffset() {
        return delegate.appendedOffset();
    }

    @Override
    public String fileAt(long offset) {
        return delegate.fileAt(offset);
    }
}
