package io.basalt.broker.schedule;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;

import io.basalt.broker.JsonConfigFile;

/**
 * {@code config/delayOffset.json} on disk: read with RocketMQ's fallback to {@code .bak} when the file is corrupt
 * (start-up stops, naming the file, when both are), written through {@link JsonConfigFile}'s tmp / bak / rename
 * in fastjson's pretty layout ({@link DelayOffsetTable#toPrettyJson()}). One writer at a time (the schedule
 * service's persister); loads happen at start and on promotion.
 */
public final class DelayOffsetFile {
    public static final String FILE_NAME = "delayOffset.json";

    private final JsonConfigFile file;

    /** @param configDir the broker's {@code <storePathRootDir>/config} */
    public DelayOffsetFile(Path configDir) {
        this.file = new JsonConfigFile(configDir.resolve(FILE_NAME), DelayOffsetTable::check);
    }

    public Path path() {
        return file.path();
    }

    /**
     * The table the file (or its backup) holds, or empty when there is none.
     *
     * @throws IOException when the file exists but neither it nor its backup is a delay offset table
     */
    public Optional<DelayOffsetTable> load(int versionStep) throws IOException {
        Optional<com.fasterxml.jackson.databind.JsonNode> json = file.load();
        return json.isEmpty() ? Optional.empty() : Optional.of(DelayOffsetTable.fromJson(json.get(), versionStep));
    }

    /** Writes {@code table} durably, the previous valid content kept as {@code .bak}. */
    public void store(DelayOffsetTable table) throws IOException {
        file.storeExactly(table.toPrettyJson().getBytes(StandardCharsets.UTF_8));
    }
}
