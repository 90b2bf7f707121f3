package io.basalt.broker.controller;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * The broker's controller identity on disk, in RocketMQ 5.2.0's format: {@code brokerIdentity} holds
 * {@code cluster#brokerName#id} (e.g. {@code DefaultCluster#broker-a#1}) once the Controller granted the id, and
 * {@code brokerIdentity-temp} holds {@code cluster#brokerName#id#registerCheckCode} while an application for an id
 * is under way. The path is the store key {@code storePathBrokerIdentity}, by default
 * {@code <storePathRootDir>/brokerIdentity}; the temp file sits beside it with the suffix {@code -temp}.
 *
 * <p>Both are written whole to a sibling {@code .tmp} file, fsynced, renamed over the old one and the directory
 * fsynced, so a crash leaves the old content or the new, never a torn one. A file that is present but not in
 * this format is an error naming the file, never read as absent. Not thread-safe: one registration at a time.
 */
public final class BrokerIdentityFile {
    /** RocketMQ's file name under the store root. */
    public static final String FILE_NAME = "brokerIdentity";
    /** Suffix of the file recording an application in progress. */
    public static final String TEMP_SUFFIX = "-temp";

    private final Path path;
    private final Path tempPath;

    /** @param path {@code storePathBrokerIdentity} */
    public BrokerIdentityFile(Path path) {
        this.path = path;
        this.tempPath = path.resolveSibling(path.getFileName() + TEMP_SUFFIX);
    }

    /** {@code <storePathRootDir>/brokerIdentity}, RocketMQ's default. */
    public static Path defaultPath(Path storePathRootDir) {
        return storePathRootDir.resolve(FILE_NAME);
    }

    public Path path() {
        return path;
    }

    public Path tempPath() {
        return tempPath;
    }

    /** The granted identity, empty when the file does not exist. */
    public Optional<Identity> read() throws IOException {
        if (!Files.exists(path)) {
            return Optional.empty();
        }
        return Optional.of(Identity.parse(Files.readString(path, StandardCharsets.UTF_8), path));
    }

    /** The application in progress, empty when the temp file does not exist. */
    public Optional<PendingIdentity> readTemp() throws IOException {
        if (!Files.exists(tempPath)) {
            return Optional.empty();
        }
        return Optional.of(PendingIdentity.parse(Files.readString(tempPath, StandardCharsets.UTF_8), tempPath));
    }

    public void write(Identity identity) throws IOException {
        writeAtomically(path, identity.encode());
    }

    public void writeTemp(PendingIdentity pending) throws IOException {
        writeAtomically(tempPath, pending.encode());
    }

    public void deleteTemp() throws IOException {
        Files.deleteIfExists(tempPath);
        syncDirectory(tempPath);
    }

    public void delete() throws IOException {
        Files.deleteIfExists(path);
        syncDirectory(path);
    }

    private static void writeAtomically(Path target, String text) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining()) {
                ch.write(bytes);
            }
            ch.force(true);
        }
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
        }
        syncDirectory(target);
    }

    private static void syncDirectory(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            return;
        }
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException notSupported) {
            // some file systems cannot open a directory for fsync; the rename is then as durable as they make it
        }
    }

    private static String[] split(String text, int parts, Path file, String format) throws IOException {
        String[] fields = text.trim().split("#", -1);
        if (fields.length != parts) {
            throw new IOException(file + " does not hold " + format + ": '" + text.trim() + "'");
        }
        for (String field : fields) {
            if (field.isEmpty()) {
                throw new IOException(file + " does not hold " + format + " (an empty field): '" + text.trim() + "'");
            }
        }
        return fields;
    }

    private static long id(String text, Path file) throws IOException {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IOException(file + " names a broker id that is not a number: '" + text + "'");
        }
    }

    private static void checkField(String name, String value) {
        if (value == null || value.isEmpty() || value.indexOf('#') >= 0) {
            throw new IllegalArgumentException(name + " must be non-empty and without '#': " + value);
        }
    }

    /** The contents of {@code brokerIdentity}. */
    public record Identity(String clusterName, String brokerName, long brokerId) {
        public Identity {
            checkField("clusterName", clusterName);
            checkField("brokerName", brokerName);
        }

        /** {@code cluster#brokerName#id}, as RocketMQ's BrokerMetadata writes it (no line end). */
        public String encode() {
            return clusterName + "#" + brokerName + "#" + brokerId;
        }

        /** Whether this identity belongs to the broker set {@code clusterName}/{@code brokerName}. */
        public boolean belongsTo(String clusterName, String brokerName) {
            return this.clusterName.equals(clusterName) && this.brokerName.equals(brokerName);
        }

        static Identity parse(String text, Path file) throws IOException {
            String[] f = split(text, 3, file, "cluster#brokerName#id");
            return new Identity(f[0], f[1], id(f[2], file));
        }
    }

    /** The contents of {@code brokerIdentity-temp}. */
    public record PendingIdentity(String clusterName, String brokerName, long brokerId, String registerCheckCode) {
        public PendingIdentity {
            checkField("clusterName", clusterName);
            checkField("brokerName", brokerName);
            checkField("registerCheckCode", registerCheckCode);
        }

        /** {@code cluster#brokerName#id#registerCheckCode}, as RocketMQ's TempBrokerMetadata writes it. */
        public String encode() {
            return clusterName + "#" + brokerName + "#" + brokerId + "#" + registerCheckCode;
        }

        public boolean belongsTo(String clusterName, String brokerName) {
            return this.clusterName.equals(clusterName) && this.brokerName.equals(brokerName);
        }

        public Identity granted() {
            return new Identity(clusterName, brokerName, brokerId);
        }

        static PendingIdentity parse(String text, Path file) throws IOException {
            String[] f = split(text, 4, file, "cluster#brokerName#id#registerCheckCode");
            return new PendingIdentity(f[0], f[1], id(f[2], file), f[3]);
        }
    }
}
