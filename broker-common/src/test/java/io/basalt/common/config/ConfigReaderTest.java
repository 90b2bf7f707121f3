package io.basalt.common.config;

import static io.basalt.common.config.ConfigKey.computed;
import static io.basalt.common.config.ConfigKey.key;
import static io.basalt.common.config.ValueTypes.integer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.basalt.common.config.ConfigReader.Setting;
import io.basalt.common.config.ConfigValues.Source;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ConfigReaderTest {

    private static final ConfigEnvironment ENVIRONMENT = new ConfigEnvironment(Path.of("/home/u"), Path.of("/work"),
        () -> "host", () -> "10.0.0.1", 2, name -> Optional.empty());

    private static final ConfigKey<Integer> PORT = key("port", "a", integer(1, 65535), "100", "Port");
    /** Declared before the key its default follows: the reader resolves the dependency first. */
    private static final ConfigKey<Integer> NEXT_PORT = computed("nextPort", "a", integer(1, 65535), "port + 1",
        r -> String.valueOf(r.get(PORT) + 1), "The port after it");

    private static Setting setting(String key, String value) {
        return new Setting(key, value, Source.PROPERTIES, "test");
    }

    @Test
    void aComputedDefaultFollowsTheKeyItDependsOnWhateverTheOrder() {
        ConfigReader reader = new ConfigReader(KeyTable.of(List.of(NEXT_PORT, PORT)), ENVIRONMENT);
        ConfigValues values = reader.read(Map.of("port", setting("port", " 200 "))).build();
        assertEquals(200, values.get(PORT));
        assertEquals(201, values.get(NEXT_PORT));
        assertEquals(Source.DEFAULT, values.source(NEXT_PORT));
        assertEquals(Source.PROPERTIES, values.source(PORT));
        assertEquals(List.of(), reader.problems());
    }

    @Test
    void everyBadValueIsReportedAndADefaultOnABadKeyIsLeftOut() {
        ConfigReader reader = new ConfigReader(KeyTable.of(List.of(PORT, NEXT_PORT)), ENVIRONMENT);
        ConfigValues.Builder values = reader.read(Map.of("port", setting("port", "99999")));
        assertEquals(List.of("test: port=99999 is out of range; allowed: an integer from 1 to 65535"), reader.problems());
        assertFalse(values.has(PORT));
        assertFalse(values.has(NEXT_PORT), "its default depends on the rejected port");
    }

    @Test
    void aComposingModuleReplacesADefaultByName() {
        ConfigKey<Integer> otherDefault = NEXT_PORT.withDefault("port + 10", r -> String.valueOf(r.get(PORT) + 10));
        KeyTable table = KeyTable.of(List.of(PORT, NEXT_PORT)).replacing(otherDefault);
        ConfigValues values = new ConfigReader(table, ENVIRONMENT).read(Map.of()).build();
        assertEquals(110, values.get(NEXT_PORT), "looked up by the module's own constant");
        assertEquals("port + 10", table.named("nextPort").orElseThrow().defaultText());
    }

    @Test
    void aNameIsDeclaredOnce() {
        KeyTable one = KeyTable.of(List.of(PORT));
        assertThrows(IllegalStateException.class, () -> one.plus(one));
    }
}
