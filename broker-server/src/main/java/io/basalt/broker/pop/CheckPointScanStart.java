package io.basalt.broker.pop;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.basalt.broker.JsonConfigFile;

/**
 * Where the checkpoints (CKs) begin whose POP offset commit may be missing from {@code consumerOffset.json}: the
 * queue offsets, in {@code rmq_sys_wheel_timer} queue 0 and in each revive queue, from which every CK was stored
 * after, or while, the offsets were copied for the file. Kept in the Basalt file
 * {@code config/popCheckPointScanStart.json}, written (atomically) right after each {@code consumerOffset.json}:
 * after a crash it is never newer than the offsets it goes with.
 *
 * @param wheelTimerOffset first rmq_sys_wheel_timer queue-0 offset to scan
 * @param reviveOffsets    first offset to scan per revive queue id
 */
record CheckPointScanStart(long wheelTimerOffset, Map<Integer, Long> reviveOffsets) {
    static final String FILE_NAME = "popCheckPointScanStart.json";

    CheckPointScanStart {
        reviveOffsets = Map.copyOf(reviveOffsets);
    }

    static JsonConfigFile file(Path configDir) {
        return new JsonConfigFile(configDir.resolve(FILE_NAME), CheckPointScanStart::check);
    }

    private static void check(JsonNode content) throws IOException {
        if (!content.path("wheelTimerOffset").canConvertToLong() || !content.path("reviveOffsets").isObject()) {
            throw new IOException("wheelTimerOffset (a number) or reviveOffsets (an object) is missing");
        }
    }

    /** The stored scan start, or empty when the file does not exist (a store written before it was kept). */
    static Optional<CheckPointScanStart> load(JsonConfigFile file) throws IOException {
        Optional<JsonNode> content = file.load();
        if (content.isEmpty()) {
            return Optional.empty();
        }
        Map<Integer, Long> revive = new TreeMap<>();
        content.get().path("reviveOffsets").fields()
            .forEachRemaining(e -> revive.put(Integer.parseInt(e.getKey()), e.getValue().longValue()));
        return Optional.of(new CheckPointScanStart(content.get().path("wheelTimerOffset").longValue(), revive));
    }

    void store(JsonConfigFile file) throws IOException {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        root.put("wheelTimerOffset", wheelTimerOffset);
        ObjectNode revive = root.putObject("reviveOffsets");
        new TreeMap<>(reviveOffsets).forEach((q, o) -> revive.put(Integer.toString(q), o));
        file.store(root);
    }
}
