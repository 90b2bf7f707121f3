package io.basalt.tools.bench.transaction;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time of the broker process under test, read from outside it the same way for Basalt and RocketMQ:
 * user + system time of all its threads from {@code /proc/<pid>/stat} (fields 14 and 15, in clock ticks).
 * A pid of 0 means none is known: every sample is 0.
 */
public final class ProcessCpu {
    /** USER_HZ: Linux reports /proc times in 1/100 s on every architecture the JVM runs on. */
    static final long TICKS_PER_SECOND = 100;

    private final long pid;

    public ProcessCpu(long pid) {
        this.pid = pid;
    }

    public boolean known() {
        return pid > 0;
    }

    /** User + system CPU time consumed so far, in microseconds. */
    public long cpuMicros() throws IOException {
        if (pid <= 0) {
            return 0;
        }
        return ticks(Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII))
            * (1_000_000 / TICKS_PER_SECOND);
    }

    /** utime + stime of a {@code /proc/<pid>/stat} line; the command name in parentheses may hold spaces. */
    static long ticks(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        // after "pid (comm) ": state is field 3, so utime (14) and stime (15) are at 11 and 12
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }
}
