package io.basalt.broker.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.remoting.json.JsonException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

    @Test
    void readsUnquotedObjectAndNumberKeys() {
        Object tree = Json.parse("{{\"a\":1}:\"x\", 0:\"zero\", name : 'single', -5: true}");
        Map<?, ?> map = (Map<?, ?>) tree;
        assertEquals("x", map.get(Map.of("a", 1L)));
        assertEquals("zero", map.get(0L));
        assertEquals("single", map.get("name"));
        assertEquals(Boolean.TRUE, map.get(-5L));
    }

    @Test
    void numbersKeepTheirRange() {
        Map<?, ?> map = (Map<?, ?>) Json.parse("{\"max\":9223372036854775807,\"big\":92233720368547758070,\"d\":1.5E3}");
        assertEquals(Long.MAX_VALUE, map.get("max"));
        assertEquals(new BigInteger("92233720368547758070"), map.get("big"));
        assertEquals(1500.0, map.get("d"));
    }

    @Test
    void malformedInputIsAClearErrorNotACrash() {
        for (String bad : List.of("", "{", "{\"a\":}", "[1,2", "{\"a\":1}x", "\"open", "{\"a\":tru}", "{\"a\":\"\\q\"}", "-")) {
            JsonException e = assertThrows(JsonException.class, () -> Json.parse(bad.getBytes(StandardCharsets.UTF_8)), bad);
            assertTrue(e.getMessage().contains("JSON") || e.getMessage().contains("offset"), e.getMessage());
        }
        assertThrows(JsonException.class, () -> Json.parse("[".repeat(10_000)));
    }

    @Test
    void wrongPropertyTypesNameTheProperty() {
        JsonException e = assertThrows(JsonException.class,
            () -> ConsumeStats.decode("{\"consumeTps\":1,\"offsetTable\":5}".getBytes(StandardCharsets.UTF_8)));
        assertTrue(e.getMessage().contains("offsetTable"), e.getMessage());
        assertThrows(JsonException.class, () -> KVTable.decode("[1]".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void nullPropertiesAreLeftOutAndNamesSorted() {
        assertEquals("{\"brokerName\":\"b\",\"queueId\":3,\"topic\":\"t\"}", Json.write(new MessageQueue("t", "b", 3).toJson()));
        assertEquals("{\"clientAddr\":\"a\",\"version\":1}", Json.write(new Connection(null, "a", null, 1).toJson()));
    }
}
