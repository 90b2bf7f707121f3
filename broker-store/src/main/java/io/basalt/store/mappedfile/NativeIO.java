package io.basalt.store.mappedfile;

import java.nio.ByteBuffer;

import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * mlock/munlock/madvise of mapped files through JNA. Where JNA, libc or the permission is missing,
 * the first failure is logged once and every later call quietly does nothing: these calls tune the
 * page cache, the store is correct without them.
 */
final class NativeIO {
    private static final Logger LOG = LoggerFactory.getLogger(NativeIO.class);

    static final int MADV_NORMAL = 0;
    static final int MADV_RANDOM = 1;
    static final int MADV_WILLNEED = 3;

    private static final boolean LINKED = link();
    private static volatile boolean failureLogged;

    private NativeIO() {
    }

    private static boolean link() {
        try {
            if (!Platform.isLinux()) {
                LOG.info("not on Linux: mapped files are used without mlock/madvise");
                return false;
            }
            Native.register(Libc.class, Platform.C_LIBRARY_NAME);
            return true;
        } catch (LinkageError | RuntimeException e) {
            LOG.warn("JNA/libc unavailable ({}): mapped files are used without mlock/madvise", e.toString());
            return false;
        }
    }

    static boolean isAvailable() {
        return LINKED;
    }

    /** Locks {@code length} bytes of a direct buffer or mapping in memory; true on success. */
    static boolean mlock(ByteBuffer buffer, long length) {
        return LINKED && check("mlock", Libc.mlock(Native.getDirectBufferPointer(buffer), new NativeLong(length)));
    }

    static boolean munlock(ByteBuffer buffer, long length) {
        return LINKED && check("munlock", Libc.munlock(Native.getDirectBufferPointer(buffer), new NativeLong(length)));
    }

    static boolean madvise(ByteBuffer buffer, long length, int advice) {
        return LINKED && check("madvise(" + advice + ")",
            Libc.madvise(Native.getDirectBufferPointer(buffer), new NativeLong(length), advice));
    }

    private static boolean check(String call, int rc) {
        if (rc == 0) {
            return true;
        }
        if (!failureLogged) {
            failureLogged = true;
            LOG.warn("{} failed with errno {}; carrying on without it (logged once)", call, Native.getLastError());
        }
        return false;
    }

    /** Direct-mapped libc calls; bound by {@link Native#register(Class, String)}. */
    static final class Libc {
        private Libc() {
        }

        static native int mlock(Pointer address, NativeLong length);

        static native int munlock(Pointer address, NativeLong length);

        static native int madvise(Pointer address, NativeLong length, int advice);
    }
}
