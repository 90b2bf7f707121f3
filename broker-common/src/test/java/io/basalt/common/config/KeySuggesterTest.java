package io.basalt.common.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KeySuggesterTest {

    @Test
    void distanceCountsInsertionsDeletionsAndSubstitutions() {
        assertEquals(0, KeySuggester.distance("listenPort", "listenPort"));
        assertEquals(1, KeySuggester.distance("flushDiskTyp", "flushDiskType"));
        assertEquals(1, KeySuggester.distance("ListenPort", "listenPort"));
        assertEquals(2, KeySuggester.distance("lsitenPort", "listenPort"));
        assertEquals(3, KeySuggester.distance("", "abc"));
    }

    @Test
    void basaltKeysWinTiesOverRocketMqOnlyKeys() {
        assertEquals(Optional.of("brokerNameX"), KeySuggester.closest("brokerName", List.of("brokerNameX"), List.of("brokerNameY")));
        assertEquals(Optional.of("abcdef"), KeySuggester.closest("abcdeg", List.of("zzzzzz"), List.of("abcdef")));
    }

    @Test
    void farNamesAreNotSuggested() {
        assertEquals(Optional.empty(), KeySuggester.closest("foo", List.of("listenPort"), List.of("aclEnable")));
    }
}
