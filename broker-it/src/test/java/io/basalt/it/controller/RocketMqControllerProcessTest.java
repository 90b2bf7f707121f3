package io.basalt.it.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fixture itself: the official Controller starts, leads, loses its leader to kill -9 and gets it back. */
class RocketMqControllerProcessTest {
    @TempDir
    Path dir;

    @Test
    void oneNodeLeadsItself() throws Exception {
        try (RocketMqControllerProcess controller = RocketMqControllerProcess.startSingle(dir, RocketMqControllerProcess.FAST)) {
            Map<String, String> meta = controller.metadata(0);
            assertEquals("true", meta.get("isLeader"), meta.toString());
            assertEquals(controller.address(0), meta.get("controllerLeaderAddress"), meta.toString());
            assertEquals(controller.group(), meta.get("group"), meta.toString());
            controller.stop(0);
            assertFalse(controller.isAlive(0));
            controller.restart(0);
            assertEquals(0, controller.awaitLeader());
        }
    }

    @Test
    void threeNodesElectANewLeaderWhenTheLeaderIsKilled() throws Exception {
        try (RocketMqControllerProcess controller = RocketMqControllerProcess.startCluster(dir, RocketMqControllerProcess.FAST)) {
            assertEquals(3, controller.controllerAddr().split(";").length);
            int leader = controller.awaitLeader();
            controller.kill(leader);
            int next = controller.awaitLeader();
            assertNotEquals(leader, next);
            controller.restart(leader);
            assertTrue(controller.isAlive(leader));
            assertEquals(next, controller.awaitLeader());
        }
    }
}
