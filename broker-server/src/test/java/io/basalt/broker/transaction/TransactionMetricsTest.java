package io.basalt.broker.transaction;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import io.basalt.broker.JsonConfigFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** config/transactionMetrics: RocketMQ's JSON written and read back, and a file RocketMQ wrote read. */
class TransactionMetricsTest {
    @TempDir
    Path dir;
    final AtomicLong now = new AtomicLong(1_700_000_000_000L);

    @Test
    void countsAreWrittenInRocketMqsLayoutAndReadBack() throws Exception {
        TransactionMetrics metrics = new TransactionMetrics(dir, now::get);
        metrics.halfStored("TopicA");
        metrics.halfStored("TopicA");
        metrics.halfStored("TopicA");
        now.addAndGet(5);
        metrics.decided("TopicA");
        metrics.halfStored("TopicB");
        metrics.givenUp("TopicB");

        metrics.persist();

        JsonNode json = JsonConfigFile.MAPPER.readTree(Files.readAllBytes(dir.resolve("transactionMetrics")));
        assertEquals(2, json.path("transactionCount").path("TopicA").path("count").asLong());
        assertEquals(1_700_000_000_005L, json.path("transactionCount").path("TopicA").path("timeStamp").asLong());
        assertEquals(0, json.path("transactionCount").path("TopicB").path("count").asLong());
        assertEquals(6, json.path("dataVersion").path("counter").asLong());
        assertEquals(0, json.path("dataVersion").path("stateVersion").asLong());
        assertEquals(1_700_000_000_005L, json.path("dataVersion").path("timestamp").asLong());

        TransactionMetrics reloaded = new TransactionMetrics(dir, now::get);
        reloaded.load();
        assertEquals(Map.of("TopicA", 2L, "TopicB", 0L), reloaded.pendingByTopic());
        reloaded.halfStored("TopicA");
        reloaded.persist();
        JsonNode again = JsonConfigFile.MAPPER.readTree(Files.readAllBytes(dir.resolve("transactionMetrics")));
        assertEquals(7, again.path("dataVersion").path("counter").asLong(), "the version goes on from the file's");
        assertEquals(3, again.path("transactionCount").path("TopicA").path("count").asLong());
    }

    @Test
    void aFileRocketMqWroteIsRead() throws Exception {
        Files.writeString(dir.resolve("transactionMetrics"), "{\"dataVersion\":{\"counter\":7,\"stateVersion\":0,"
            + "\"timestamp\":1700000000000},\"transactionCount\":{\"TopicA\":{\"count\":3,\"timeStamp\":1700000000000}}}",
            StandardCharsets.UTF_8);

        TransactionMetrics metrics = new TransactionMetrics(dir, now::get);
        metrics.load();

        assertEquals(3, metrics.pending("TopicA"));
        assertEquals(0, metrics.pending("TopicB"));
    }

    @Test
    void aMissingFileIsNoCountsYet() throws Exception {
        TransactionMetrics metrics = new TransactionMetrics(dir.resolve("absent"), now::get);
        metrics.load();

        assertEquals(Map.of(), metrics.pendingByTopic());
    }
}
