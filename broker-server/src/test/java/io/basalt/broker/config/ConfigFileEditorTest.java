package io.basalt.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.StringReader;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ConfigFileEditorTest {

    @Test
    void replacesTheLastEntryOfAKeyAndDropsEarlierDuplicates() {
        String edited = ConfigFileEditor.edit(List.of("a=1", "# note", "b : 2", "a = 3"), Map.of("a", "9"));

        assertEquals("# note\nb : 2\na=9\n", edited);
    }

    @Test
    void replacesAContinuedEntryWhole() {
        String edited = ConfigFileEditor.edit(List.of("namesrvAddr=h1:9876;\\", "   h2:9876", "# end"),
            Map.of("namesrvAddr", "h3:9876"));

        assertEquals("namesrvAddr=h3:9876\n# end\n", edited);
    }

    @Test
    void aCommentThatLooksLikeAnEntryIsKept() {
        String edited = ConfigFileEditor.edit(List.of("#a=1", "  ! a=2", "a\t5"), Map.of("a", "6"));

        assertEquals("#a=1\n  ! a=2\na=6\n", edited);
    }

    @Test
    void writtenValuesReadBackExactly() throws IOException {
        Map<String, String> changed = new LinkedHashMap<>();
        changed.put("path", "C:\\store dir");
        changed.put("lead", " x=y:z#");
        changed.put("unicode", "caf\u00e9 \u4e2d");
        Properties read = new Properties();
        read.load(new StringReader(ConfigFileEditor.edit(List.of(), changed)));

        changed.forEach((key, value) -> assertEquals(value, read.getProperty(key), key));
    }
}
