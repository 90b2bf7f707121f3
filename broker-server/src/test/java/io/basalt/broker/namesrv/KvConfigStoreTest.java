package io.basalt.broker.namesrv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KvConfigStoreTest {
    @TempDir
    Path dir;

    @Test
    void entriesAreKeptInRocketMqsKvConfigFormatAndReadBack() throws Exception {
        Path file = dir.resolve("kvConfig.json");
        KvConfigStore store = KvConfigStore.open(file);
        store.put(KvConfigStore.ORDER_TOPIC_CONFIG, "orders", "broker-a:4;broker-b:4");
        store.put("ns", "k", "v");
        store.delete("ns", "k");

        assertEquals("{\"configTable\":{\"ORDER_TOPIC_CONFIG\":{\"orders\":\"broker-a:4;broker-b:4\"}}}",
            Files.readString(file).replaceAll("\\s", ""));
        KvConfigStore reopened = KvConfigStore.open(file);
        assertEquals(Optional.of("broker-a:4;broker-b:4"), reopened.get(KvConfigStore.ORDER_TOPIC_CONFIG, "orders"));
        assertEquals(Optional.of(Map.of("orders", "broker-a:4;broker-b:4")),
            reopened.namespace(KvConfigStore.ORDER_TOPIC_CONFIG));
        assertTrue(reopened.namespace("ns").isEmpty());
    }
}
