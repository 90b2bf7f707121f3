package io.basalt.broker.topic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BrokerPermissionTest {

    private final BrokerPermission permission = new BrokerPermission();

    @Test
    void aFullPermissionRegistersTopicsAsTheyAre() {
        permission.configure(6, "10.0.0.1");

        assertEquals(7, permission.registeredPerm(7));
        assertEquals(4, permission.registeredPerm(4));
        assertTrue(permission.readable() && permission.writable());
    }

    @Test
    void withoutWriteEveryTopicIsRegisteredReadOnly() {
        permission.configure(4, "10.0.0.1");

        assertEquals(4, permission.registeredPerm(6));
        assertEquals(4, permission.registeredPerm(7));
        assertFalse(permission.writable());
        assertEquals("the broker[10.0.0.1] sending message is forbidden (brokerPermission=4)", permission.forbidden("sending"));
    }

    @Test
    void withoutReadEveryTopicIsRegisteredWriteOnly() {
        permission.configure(2, "10.0.0.1");

        assertEquals(2, permission.registeredPerm(6));
        assertFalse(permission.readable());
    }

    @Test
    void aWipedWriteShowsOnlyInTheSelfAnsweredRoutesUntilAdded() {
        permission.configure(6, "10.0.0.1");
        permission.wipeWrite();

        assertEquals(4, permission.routePerm(6));
        assertEquals(6, permission.registeredPerm(6));
        assertTrue(permission.writable());

        permission.addWrite();
        assertEquals(6, permission.routePerm(6));
    }
}
