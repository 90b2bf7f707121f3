package io.basalt.broker.transaction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

class OpMarkerBodyTest {

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void readsRocketMq5MergedAndRocketMq49SingleBodies() {
        assertEquals(List.of(17L, 18L, 21L), OpMarkerBody.parse(ascii("17,18,21,")));
        assertEquals(List.of(17L), OpMarkerBody.parse(ascii("17")));
        assertEquals(List.of(), OpMarkerBody.parse(ascii("")));
        assertEquals(List.of(), OpMarkerBody.parse(null));
    }

    @Test
    void writesTheRocketMq5Form() {
        assertArrayEquals(ascii("17,18,21,"), OpMarkerBody.format(List.of(17L, 18L, 21L)));
        assertEquals(List.of(5L, 9L), OpMarkerBody.parse(OpMarkerBody.format(List.of(5L, 9L))));
    }

    @Test
    void aBodyThatIsNotOffsetsIsRefusedNamingThePiece() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> OpMarkerBody.parse(ascii("17,x1,")));
        assertEquals("op marker body piece 'x1' is not a half-queue offset", e.getMessage());
    }
}
