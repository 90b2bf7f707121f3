package io.basalt.store.mappedfile;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases a mapping (or a direct buffer) at once instead of waiting for the garbage collector:
 * a deleted CommitLog file keeps its disk space for as long as it stays mapped. Resolves
 * {@code sun.misc.Unsafe.invokeCleaner} once; when that is impossible it remembers why, logs it once,
 * and leaves the buffers to the collector.
 */
public final class Unmapper {
    private static final Logger LOG = LoggerFactory.getLogger(Unmapper.class);

    private static final MethodHandle INVOKE_CLEANER;
    private static final Throwable UNAVAILABLE_CAUSE;
    private static volatile boolean unavailableLogged;

    static {
        MethodHandle handle = null;
        Throwable cause = null;
        try {
            Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
            Field theUnsafe = unsafeClass.getDeclaredField("theUnsafe");
            theUnsafe.setAccessible(true);
            Object unsafe = theUnsafe.get(null);
            handle = MethodHandles.lookup()
                .findVirtual(unsafeClass, "invokeCleaner", MethodType.methodType(void.class, ByteBuffer.class))
                .bindTo(unsafe);
        } catch (ReflectiveOperationException | RuntimeException e) {
            cause = e;
        }
        INVOKE_CLEANER = handle;
        UNAVAILABLE_CAUSE = cause;
    }

    private Unmapper() {
    }

    static boolean isAvailable() {
        return INVOKE_CLEANER != null;
    }

    /**
     * Unmaps {@code buffer} (a mapping or a direct buffer, never a slice or duplicate). The caller
     * guarantees that nothing touches the buffer afterwards. Public for the IndexFile's write mapping.
     */
    public static void unmap(String description, ByteBuffer buffer) {
        if (INVOKE_CLEANER == null) {
            if (!unavailableLogged) {
                unavailableLogged = true;
                LOG.warn("cannot unmap buffers deterministically ({}); {} and later buffers are left to the GC",
                    UNAVAILABLE_CAUSE.toString(), description);
            }
            return;
        }
        try {
            INVOKE_CLEANER.invokeExact(buffer);
        } catch (Throwable t) {
            throw new IllegalStateException("unmapping " + description + " failed", t);
        }
    }
}
