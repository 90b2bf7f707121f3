package io.basalt.broker.config;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes changed keys into a properties file the operator wrote by hand, touching only the entries of those keys:
 * comments, blank lines, order and every other entry stay as they were (RocketMQ instead rewrites the whole file
 * with hundreds of defaults). A key already in the file has its last entry replaced in place (a later duplicate
 * wins when the file is read, so that is the one that counts) and earlier duplicates removed; a new key is
 * appended. The file is replaced atomically: the new text goes to a temporary file beside it, is forced to disk,
 * renamed over the file, and the directory is forced, so a crash leaves either the old file or the new one.
 * Files are ISO-8859-1, as RocketMQ reads them; other characters are written as Unicode escapes.
 */
final class ConfigFileEditor {

    private ConfigFileEditor() {
    }

    /** Writes {@code changed} (key → value text) into {@code file}, creating the file if it does not exist. */
    static void write(Path file, Map<String, String> changed) throws IOException {
        List<String> lines = Files.exists(file)
            ? Files.readAllLines(file, StandardCharsets.ISO_8859_1) : List.of();
        String text = edit(lines, changed);
        replaceAtomically(file, text.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** The file's new text: {@code lines} with the entries of {@code changed} replaced or appended. */
    static String edit(List<String> lines, Map<String, String> changed) {
        List<List<String>> entries = logicalLines(lines);
        Map<String, Integer> lastEntry = new LinkedHashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            String key = keyOf(entries.get(i).get(0));
            if (key != null && changed.containsKey(key)) {
                lastEntry.put(key, i);
            }
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < entries.size(); i++) {
            String key = keyOf(entries.get(i).get(0));
            if (key != null && changed.containsKey(key)) {
                if (lastEntry.get(key) == i) {
                    text.append(entry(key, changed.get(key))).append('\n');
                }
                continue;
            }
            entries.get(i).forEach(line -> text.append(line).append('\n'));
        }
        changed.forEach((key, value) -> {
            if (!lastEntry.containsKey(key)) {
                text.append(entry(key, value)).append('\n');
            }
        });
        return text.toString();
    }

    /** Groups physical lines into logical ones: a line ending in an odd number of backslashes continues. */
    private static List<List<String>> logicalLines(List<String> lines) {
        List<List<String>> entries = new ArrayList<>();
        List<String> current = null;
        for (String line : lines) {
            if (current == null) {
                current = new ArrayList<>();
            }
            current.add(line);
            boolean comment = current.size() == 1 && isComment(line);
            if (comment || !continues(line)) {
                entries.add(current);
                current = null;
            }
        }
        if (current != null) {
            entries.add(current);
        }
        return entries;
    }

    private static boolean isComment(String line) {
        String stripped = line.stripLeading();
        return stripped.isEmpty() || stripped.charAt(0) == '#' || stripped.charAt(0) == '!';
    }

    private static boolean continues(String line) {
        int backslashes = 0;
        for (int i = line.length() - 1; i >= 0 && line.charAt(i) == '\\'; i--) {
            backslashes++;
        }
        return backslashes % 2 == 1;
    }

    /** The key of an entry's first line as {@code Properties.load} reads it; null for a comment or blank line. */
    static String keyOf(String firstLine) {
        if (isComment(firstLine)) {
            return null;
        }
        String line = firstLine.stripLeading();
        StringBuilder key = new StringBuilder();
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\\' && i + 1 < line.length()) {
                char next = line.charAt(++i);
                key.append(switch (next) {
                    case 't' -> '\t';
                    case 'n' -> '\n';
                    case 'r' -> '\r';
                    case 'f' -> '\f';
                    default -> next;
                });
            } else if (c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f') {
                break;
            } else {
                key.append(c);
            }
        }
        return key.toString();
    }

    /** One {@code key=value} line, escaped so that {@code Properties.load} reads back exactly this value. */
    static String entry(String key, String value) {
        return escape(key, true) + "=" + escape(value, false);
    }

    private static String escape(String text, boolean isKey) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\f' -> out.append("\\f");
                case '=', ':', '#', '!' -> out.append(isKey ? "\\" : "").append(c);
                case ' ' -> out.append(isKey || i == 0 ? "\\ " : " ");
                default -> {
                    if (c < 0x20 || c > 0xff) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    private static void replaceAtomically(Path file, byte[] content) throws IOException {
        Path target = file.toAbsolutePath();
        Path dir = target.getParent();
        Files.createDirectories(dir);
        Path temp = Files.createTempFile(dir, target.getFileName().toString(), ".tmp");
        try {
            keepPermissions(target, temp);
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("cannot replace " + target + " atomically (" + e.getMessage() + ")", e);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
        forceDirectory(dir);
    }

    /** The temporary file is created owner-only; the replaced file keeps the permissions the operator gave it. */
    private static void keepPermissions(Path target, Path temp) throws IOException {
        if (!Files.exists(target)) {
            return;
        }
        try {
            Files.setPosixFilePermissions(temp, Files.getPosixFilePermissions(target));
        } catch (UnsupportedOperationException notPosix) {
            // a file system without POSIX permissions keeps its own defaults
        }
    }

    /** Makes the rename durable; some file systems cannot open a directory, where there is nothing more to do. */
    private static void forceDirectory(Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException notSupported) {
            // the rename itself is atomic; only its durability across a power loss depends on this
        }
    }
}
