package io.basalt.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NameServerSettingsTest {
    @TempDir
    Path dir;

    @Test
    void anUpdateAppliesAtOnceAndIsReadAtTheNextStart() throws Exception {
        Path file = dir.resolve("namesrv.properties");
        Files.writeString(file, "# kept\n");
        NameServerSettings settings = NameServerSettings.open(file);
        assertFalse(settings.orderMessageEnable());

        settings.update(Map.of("orderMessageEnable", "TRUE"));

        assertTrue(settings.orderMessageEnable());
        assertEquals("# kept\norderMessageEnable=true\n", Files.readString(file));
        assertTrue(NameServerSettings.open(file).orderMessageEnable());
    }

    @Test
    void blacklistedUnknownAndInvalidAreRefusedWhole() throws Exception {
        NameServerSettings settings = NameServerSettings.open(dir.resolve("namesrv.properties"));

        assertTrue(assertThrows(ConfigUpdateRefusedException.class,
            () -> settings.update(Map.of("kvConfigPath", "/x"))).blacklisted());
        String unknown = assertThrows(ConfigUpdateRefusedException.class,
            () -> settings.update(Map.of("orderMessageEnabled", "true"))).getMessage();
        assertTrue(unknown.contains("did you mean orderMessageEnable?"), unknown);
        String invalid = assertThrows(ConfigUpdateRefusedException.class,
            () -> settings.update(Map.of("orderMessageEnable", "yes"))).getMessage();
        assertTrue(invalid.contains("orderMessageEnable=yes"), invalid);
        assertFalse(settings.orderMessageEnable());
        assertFalse(Files.exists(dir.resolve("namesrv.properties")));
    }
}
