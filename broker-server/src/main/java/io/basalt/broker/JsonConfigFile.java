package io.basalt.broker;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.common.io.Directories;

/**
 * One broker metadata file in RocketMQ's JSON layout ({@code topics.json}, {@code consumerOffset.json}),
 * written so that a crash never leaves it half-written (docs/pain-points.md#pp-15): the new content goes to
 * {@code <file>.tmp} and is fsynced, the current file — only if it still parses — is copied to
 * {@code <file>.bak} (fsynced), the temp file is renamed over the file, and the directory is fsynced.
 *
 * <p>Reading accepts what RocketMQ's fastjson writes (unquoted numeric map keys such as {@code {0:12}}).
 * A missing file is "no data yet"; a corrupt file falls back to a valid {@code .bak} with a WARN; a corrupt
 * file without a valid backup is an error, so the broker refuses to start instead of silently resetting
 * consumer offsets or topics. A file may come with a {@link ContentCheck} of its values: content that is valid
 * JSON but fails it (a negative offset, a negative queue count) counts as corrupt, both when loading and when
 * deciding whether the current content is worth keeping as the backup. Callers serialise their own calls (one
 * persisting thread per file).
 */
public final class JsonConfigFile {
    private static final Logger log = LoggerFactory.getLogger(JsonConfigFile.class);
    /** Lenient like fastjson on input; standard JSON on output (fastjson reads quoted numeric keys). */
    public static final ObjectMapper MAPPER = JsonMapper.builder()
        .enable(JsonReadFeature.ALLOW_UNQUOTED_FIELD_NAMES)
        .enable(JsonReadFeature.ALLOW_SINGLE_QUOTES)
        .enable(JsonReadFeature.ALLOW_TRAILING_COMMA)
        .build();

    /**
     * What a file's values must satisfy beyond being a JSON object; throws naming the first entry that does not
     * (a value the broker would otherwise read as 0 or advertise as it is).
     */
    @FunctionalInterface
    public interface ContentCheck {
        ContentCheck NONE = content -> { };

        void check(JsonNode content) throws IOException;
    }

    private final Path file;
    private final Path backup;
    private final Path temp;
    private final ContentCheck check;

    public JsonConfigFile(Path file) {
        this(file, ContentCheck.NONE);
    }

    public JsonConfigFile(Path file, ContentCheck check) {
        this.file = file;
        this.check = check;
        this.backup = file.resolveSibling(file.getFileName() + ".bak");
        this.temp = file.resolveSibling(file.getFileName() + ".tmp");
    }

    public Path path() {
        return file;
    }

    /**
     * The file's content, the backup's when the file is missing or corrupt, or empty when neither exists.
     *
     * @throws IOException when the file exists but neither it nor its backup parses
     */
    public Optional<JsonNode> load() throws IOException {
        Optional<String> problem;
        try {
            return Optional.of(parse(file));
        } catch (NoSuchFileException e) {
            problem = Optional.empty();
        } catch (IOException e) {
            problem = Optional.of(e.getMessage());
        }
        try {
            JsonNode fromBackup = parse(backup);
            log.warn("{}: {}; using its backup {}", file, problem.orElse("missing"), backup);
            return Optional.of(fromBackup);
        } catch (NoSuchFileException e) {
            if (problem.isPresent()) {
                throw new IOException(file + " is corrupt (" + problem.get() + ") and there is no " + backup
                    + "; fix or remove the file to start");
            }
            return Optional.empty();
        } catch (IOException e) {
            if (problem.isPresent()) {
                throw new IOException(file + " is corrupt (" + problem.get() + ") and so is " + backup + " ("
                    + e.getMessage() + "); fix or remove them to start");
            }
            throw new IOException(file + " is missing and " + backup + " is corrupt: " + e.getMessage());
        }
    }

    /** The file's bytes as they are (no backup fallback, not parsed), or empty when the file does not exist. */
    public Optional<byte[]> loadExactly() throws IOException {
        try {
            return Optional.of(Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    private JsonNode parse(Path path) throws IOException {
        byte[] bytes = Files.readAllBytes(path);
        JsonNode node;
        try {
            node = MAPPER.readTree(bytes);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IOException("not valid JSON: " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject()) {
            throw new IOException("not a JSON object (" + bytes.length + " bytes)");
        }
        check.check(node);
        return node;
    }

    /** Replaces the file's content atomically and durably, keeping the previous valid content as {@code .bak}. */
    public void store(JsonNode content) throws IOException {
        try {
            replaceDurably(content);
        } catch (IOException e) {
            // the caller's message (often a remark to a remote admin tool) then names the file
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Like {@link #store(JsonNode)}, but writes {@code content} exactly as given (a body received from a RocketMQ
     * master, fastjson's unquoted numeric keys and all), once it is known to parse as a JSON object.
     *
     * @throws IOException when the content is not a JSON object, or writing fails
     */
    public void storeExactly(byte[] content) throws IOException {
        try {
            parseBytes(content);
            writeReplacing(content);
        } catch (IOException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    private void replaceDurably(JsonNode content) throws IOException {
        writeReplacing(MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(content));
    }

    private void writeReplacing(byte[] bytes) throws IOException {
        Files.createDirectories(file.getParent());
        writeDurably(temp, bytes);
        if (Files.exists(file)) {
            try {
                byte[] current = Files.readAllBytes(file);
                parseBytes(current);
                Path backupTemp = backup.resolveSibling(backup.getFileName() + ".tmp");
                writeDurably(backupTemp, current);
                Files.move(backupTemp, backup, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                log.warn("{}: not backed up, current content is not valid ({})", file, e.getMessage());
            }
        }
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Directories.fsync(file.getParent());
    }

    private void parseBytes(byte[] bytes) throws IOException {
        JsonNode node = MAPPER.readTree(bytes);
        if (node == null || !node.isObject()) {
            throw new IOException("not a JSON object");
        }
        check.check(node);
    }

    private static void writeDurably(Path path, byte[] bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                ch.write(buffer);
            }
            ch.force(true);
        }
    }
}
