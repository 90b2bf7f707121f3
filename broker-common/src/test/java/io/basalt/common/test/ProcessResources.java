package io.basalt.common.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What this process holds, read from Linux's {@code /proc/self}: the files it has mapped, the file
 * descriptors it has open, and the resident size of one mapping. Everything the JVM maps or opens
 * once for its lifetime (its own files, the class path's jars, shared libraries, libffi's trampoline
 * file, the perf-data file, kernel pseudo-files the container metrics read at any time) is left out,
 * so two snapshots differ only by what code under test opened.
 */
public final class ProcessResources {
    private static final Path PROC_SELF = Path.of("/proc/self");
    private static final String JAVA_HOME = System.getProperty("java.home");

    private ProcessResources() {
    }

    /** False where there is no {@code /proc} (not Linux): the snapshots are then empty. */
    public static boolean available() {
        return Files.isDirectory(PROC_SELF.resolve("fd"));
    }

    /** Paths of the files mapped into this process; a mapped file that was deleted ends in {@code " (deleted)"}. */
    public static Set<String> mappedFiles() {
        if (!available()) {
            return Set.of();
        }
        Set<String> files = new HashSet<>();
        for (String line : readLines(PROC_SELF.resolve("maps"))) {
            int slash = line.indexOf('/');
            if (slash >= 0) {
                String path = line.substring(slash);
                if (isOwn(path)) {
                    files.add(path);
                }
            }
        }
        return files;
    }

    /**
     * What this process's file descriptors point at: files by path, sockets, pipes and event fds as
     * the kernel names them ({@code socket:[123]}, {@code anon_inode:[eventpoll]}).
     */
    public static Set<String> openFiles() {
        if (!available()) {
            return Set.of();
        }
        try (Stream<Path> fds = Files.list(PROC_SELF.resolve("fd"))) {
            return fds.map(ProcessResources::target).filter(t -> !t.isEmpty() && (!t.startsWith("/") || isOwn(t)))
                .collect(Collectors.toSet());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code target} with, for a TCP socket, its addresses and state from {@code /proc/self/net/tcp}
     * and {@code tcp6} ({@code socket:[123] 0100007F:A5F4->0100007F:2A9F state 01}), to tell a leaked
     * socket's owner by its port.
     */
    public static String describe(String target) {
        if (!target.startsWith("socket:[") || !available()) {
            return target;
        }
        String inode = target.substring("socket:[".length(), target.length() - 1);
        for (String table : List.of("tcp", "tcp6")) {
            Path file = PROC_SELF.resolve("net").resolve(table);
            if (!Files.exists(file)) {
                continue;
            }
            for (String line : readLines(file)) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 9 && f[9].equals(inode)) {
                    return target + " " + f[1] + "->" + f[2] + " state " + f[3];
                }
            }
        }
        return target;
    }

    /**
     * One line per open epoll instance: its descriptor and what it watches, each watched descriptor
     * {@linkplain #describe described} ({@code fd 57 watches [anon_inode:[eventfd], socket:[123] ...]}).
     * An epoll that watches only its own event fd is a selector no channel was ever registered with,
     * such as a Netty event loop whose thread never started.
     */
    public static List<String> epollInstances() {
        if (!available()) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        try (Stream<Path> fds = Files.list(PROC_SELF.resolve("fd"))) {
            for (Path fd : fds.sorted().toList()) {
                if (!target(fd).equals("anon_inode:[eventpoll]")) {
                    continue;
                }
                List<String> watched = new ArrayList<>();
                try {
                    for (String line : Files.readAllLines(PROC_SELF.resolve("fdinfo").resolve(fd.getFileName()))) {
                        if (line.startsWith("tfd:")) {
                            String watchedFd = line.substring("tfd:".length()).trim().split("\\s+")[0];
                            watched.add(describe(target(PROC_SELF.resolve("fd").resolve(watchedFd))));
                        }
                    }
                } catch (IOException e) {
                    continue;   // closed while we looked
                }
                out.add("fd " + fd.getFileName() + " watches " + watched);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /**
     * Resident size in KiB of this process's mapping of {@code file}, from {@code /proc/self/smaps}:
     * the sum over the mapping's areas (mlock or madvise of part of a mapping splits it in several).
     */
    public static long residentKiB(Path file) throws IOException {
        String name = file.toAbsolutePath().toString();
        List<String> lines = Files.readAllLines(PROC_SELF.resolve("smaps"));
        long kib = 0;
        boolean mapped = false;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).endsWith(" " + name)) {
                mapped = true;
                for (int j = i + 1; j < lines.size(); j++) {
                    String line = lines.get(j);
                    if (line.startsWith("Rss:")) {
                        kib += Long.parseLong(line.replaceAll("[^0-9]", ""));
                        break;
                    }
                }
            }
        }
        if (!mapped) {
            throw new IOException(name + " is not mapped");
        }
        return kib;
    }

    /** True for a path code under test may have opened; false for what the JVM keeps for its lifetime. */
    private static boolean isOwn(String path) {
        String name = path.substring(path.lastIndexOf('/') + 1);
        return !path.startsWith("/sys/") && !path.startsWith("/proc/") && !path.startsWith("/dev/")
            && !path.startsWith(JAVA_HOME) && !path.contains("/hsperfdata_")
            && !name.endsWith(".jar") && !name.endsWith(".so") && !name.contains(".so.") && !name.startsWith("ffi")
            && !name.startsWith("jna") && !name.startsWith("libnetty");
    }

    private static String target(Path fd) {
        try {
            return Files.readSymbolicLink(fd).toString();
        } catch (IOException e) {
            return "";   // closed between listing and reading, or the directory stream's own descriptor
        }
    }

    private static List<String> readLines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
