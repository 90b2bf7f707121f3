package io.basalt.store.mappedfile;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * mlock/munlock/madvise of mapped files and fallocate of new ones through JNA. Where JNA, libc or the
 * permission is missing, the first failure is logged once and every later call quietly does nothing:
 * these calls tune the page cache and the allocation, the store is correct without them.
 */
final class NativeIO {
    private static final Logger LOG = LoggerFactory.getLogger(NativeIO.class);

    static final int MADV_NORMAL = 0;
    static final int MADV_RANDOM = 1;
    static final int MADV_WILLNEED = 3;
    static final int MADV_DONTNEED = 4;
    private static final int POSIX_FADV_DONTNEED = 4;
    private static final int O_RDONLY = 0;

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
        return mlock(buffer, 0, length);
    }

    static boolean munlock(ByteBuffer buffer, long length) {
        return munlock(buffer, 0, length);
    }

    /** mlock of {@code [offset, offset + length)} of a mapping; {@code offset} must be page-aligned. */
    static boolean mlock(ByteBuffer buffer, long offset, long length) {
        return LINKED && check("mlock",
            Libc.mlock(Native.getDirectBufferPointer(buffer).share(offset), new NativeLong(length)));
    }

    /** munlock of {@code [offset, offset + length)} of a mapping; {@code offset} must be page-aligned. */
    static boolean munlock(ByteBuffer buffer, long offset, long length) {
        return LINKED && check("munlock",
            Libc.munlock(Native.getDirectBufferPointer(buffer).share(offset), new NativeLong(length)));
    }

    static boolean madvise(ByteBuffer buffer, long length, int advice) {
        return madvise(buffer, 0, length, advice);
    }

    /** madvise of {@code [offset, offset + length)} of a mapping; {@code offset} must be page-aligned. */
    static boolean madvise(ByteBuffer buffer, long offset, long length, int advice) {
        return LINKED && check("madvise(" + advice + ")",
            Libc.madvise(Native.getDirectBufferPointer(buffer).share(offset), new NativeLong(length), advice));
    }

    /**
     * Drops the clean, unmapped page-cache pages of {@code [offset, offset + length)} of a file
     * (posix_fadvise DONTNEED), so they are read back later in whatever folio size the next access
     * asks for.
     */
    static boolean dropPageCache(Path file, long offset, long length) {
        if (!LINKED) {
            return false;
        }
        int fd = Libc.open(file.toString(), O_RDONLY);
        if (!check("open", fd >= 0 ? 0 : -1)) {
            return false;
        }
        try {
            // posix_fadvise returns the error number itself instead of setting errno.
            return check("posix_fadvise", Libc.posix_fadvise(fd, offset, length, POSIX_FADV_DONTNEED));
        } finally {
            Libc.close(fd);
        }
    }

    /** What {@link #fallocate} returns when the call is not there or the filesystem does not support it. */
    static final int FALLOCATE_UNSUPPORTED = -1;
    private static final int O_WRONLY = 1;
    private static final int EOPNOTSUPP = 95;

    /**
     * Allocates the blocks of {@code [0, length)} of an existing file without writing them
     * (fallocate mode 0: unwritten extents that read as zeros, file size extended to {@code length}).
     *
     * @return 0 on success, the errno of a failure (ENOSPC: the disk is full), or
     *         {@link #FALLOCATE_UNSUPPORTED} without JNA, libc's fallocate or filesystem support
     */
    static int fallocate(Path file, long length) {
        return fallocate(file, 0, length);
    }

    /** As {@link #fallocate(Path, long)} for the blocks of {@code [offset, offset + length)}. */
    static int fallocate(Path file, long offset, long length) {
        if (!LINKED) {
            return FALLOCATE_UNSUPPORTED;
        }
        int fd = Libc.open(file.toString(), O_WRONLY);
        if (fd < 0) {
            return Native.getLastError();
        }
        try {
            if (Libc.fallocate(fd, 0, offset, length) == 0) {
                return 0;
            }
            int errno = Native.getLastError();
            return errno == EOPNOTSUPP ? FALLOCATE_UNSUPPORTED : errno;
        } finally {
            Libc.close(fd);
        }
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

        static native int open(String path, int flags);

        static native int close(int fd);

        static native int posix_fadvise(int fd, long offset, long length, int advice);

        static native int fallocate(int fd, int mode, long offset, long length);
    }
}
