package io.basalt.broker.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WaitingReceivesTest {
    private final WaitingReceives waiting = new WaitingReceives();

    @Test
    void aTerminatingClientsCallsAreHandedOverOnceAndOthersStay() {
        WaitingReceives.Call a1 = new WaitingReceives.Call(null);
        WaitingReceives.Call a2 = new WaitingReceives.Call(null);
        WaitingReceives.Call b = new WaitingReceives.Call(null);
        waiting.add("a", a1);
        waiting.add("a", a2);
        waiting.add("b", b);

        assertEquals(Set.of(a1, a2), Set.copyOf(waiting.removeAll("a")));
        assertEquals(List.of(), waiting.removeAll("a"));
        // the pop of a handed-over call answers later: removing it again changes nothing
        waiting.remove("a", a1);
        assertEquals(List.of(b), waiting.removeAll("b"), "another client's call stays");
        waiting.add("b", b);
        waiting.remove("b", b);
        assertEquals(List.of(), waiting.removeAll("b"), "an answered call is forgotten");
    }

    @Test
    void aCallIsAnsweredByWhoeverClaimsItFirst() {
        WaitingReceives.Call call = new WaitingReceives.Call(null);
        assertTrue(call.claim());
        assertFalse(call.claim());
    }
}
