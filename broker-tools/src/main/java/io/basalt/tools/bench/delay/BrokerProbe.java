package io.basalt.tools.bench.delay;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Memory and disk figures of the broker process under test, read from outside it the same way for Basalt and
 * RocketMQ: {@code /proc/<pid>/status} (VmRSS, RssAnon = heap, direct buffers and other private memory;
 * RssFile = mapped store files in the page cache), {@code /proc/<pid>/io} (write_bytes: bytes the process sent
 * or dirtied towards storage, mapped writes included) and, after a full GC requested with {@code jcmd GC.run},
 * the used Java heap from {@code jcmd GC.heap_info}. Called from the thread that runs the case.
 */
public final class BrokerProbe {
    private static final Pattern HEAP_USED = Pattern.compile("heap\\s+total\\s+\\d+K,\\s+used\\s+(\\d+)K");

    private final long pid;

    public BrokerProbe(long pid) {
        this.pid = pid;
    }

    /** One sample; {@code gcFirst} runs a full GC before reading the heap, so the figure is the live heap. */
    public Sample sample(boolean gcFirst) throws IOException, InterruptedException {
        if (gcFirst) {
            jcmd("GC.run");
        }
        long heapKb = parseHeapUsedKb(jcmd("GC.heap_info"));
        String status = Files.readString(Path.of("/proc", Long.toString(pid), "status"), StandardCharsets.UTF_8);
        String io = Files.readString(Path.of("/proc", Long.toString(pid), "io"), StandardCharsets.UTF_8);
        return new Sample(heapKb, statusKb(status, "VmRSS"), statusKb(status, "RssAnon"), statusKb(status, "RssFile"),
            ioField(io, "write_bytes"));
    }

    private String jcmd(String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("jcmd", Long.toString(pid), command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("jcmd " + pid + " " + command + " failed: " + new String(out, StandardCharsets.UTF_8));
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    /** The used heap (KiB) in the output of {@code jcmd <pid> GC.heap_info} (G1, Parallel and Serial print the same shape). */
    static long parseHeapUsedKb(String heapInfo) {
        Matcher m = HEAP_USED.matcher(heapInfo);
        if (!m.find()) {
            throw new IllegalArgumentException("no 'heap total ...K, used ...K' line in: " + heapInfo);
        }
        return Long.parseLong(m.group(1));
    }

    /** A {@code Key:   1234 kB} line of {@code /proc/<pid>/status}, in KiB. */
    static long statusKb(String status, String key) {
        for (String line : status.split("\n")) {
            if (line.startsWith(key + ":")) {
                return Long.parseLong(line.substring(key.length() + 1).trim().split("\\s+")[0]);
            }
        }
        throw new IllegalArgumentException("no " + key + " in /proc status");
    }

    /** A {@code key: 1234} line of {@code /proc/<pid>/io}. */
    static long ioField(String io, String key) {
        for (String line : io.split("\n")) {
            if (line.startsWith(key + ":")) {
                return Long.parseLong(line.substring(key.length() + 1).trim());
            }
        }
        throw new IllegalArgumentException("no " + key + " in /proc io");
    }

    /** Heap and resident sizes in KiB; {@code writeBytes} is cumulative since the process started. */
    public record Sample(long heapUsedKb, long rssKb, long rssAnonKb, long rssFileKb, long writeBytes) {
        /** {@code key=value} figures of this sample and of the growth since {@code before}, keys prefixed with {@code tag}. */
        public String line(String tag, Sample before) {
            return String.format(Locale.ROOT,
                "%1$s_heap_mib=%2$.1f %1$s_rss_mib=%3$.1f %1$s_rss_anon_mib=%4$.1f %1$s_rss_file_mib=%5$.1f"
                    + " heap_growth_mib=%6$.1f rss_anon_growth_mib=%7$.1f disk_written_mib=%8$.1f",
                tag, heapUsedKb / 1024.0, rssKb / 1024.0, rssAnonKb / 1024.0, rssFileKb / 1024.0,
                (heapUsedKb - before.heapUsedKb) / 1024.0, (rssAnonKb - before.rssAnonKb) / 1024.0,
                (writeBytes - before.writeBytes) / 1048576.0);
        }
    }
}
