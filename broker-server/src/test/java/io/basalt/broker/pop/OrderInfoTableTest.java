package io.basalt.broker.pop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

import com.fasterxml.jackson.databind.JsonNode;
import io.basalt.broker.JsonConfigFile;
import io.basalt.broker.pop.OrderInfoTable.Blocked;
import io.basalt.broker.pop.OrderInfoTable.Changed;
import io.basalt.broker.pop.OrderInfoTable.Commit;
import io.basalt.broker.pop.OrderInfoTable.Free;
import io.basalt.broker.pop.OrderInfoTable.NotInBatch;
import io.basalt.broker.pop.OrderInfoTable.Replay;
import io.basalt.broker.pop.OrderInfoTable.Stale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The order-POP state of a queue: blocking, idempotent same-attempt replays, ACK commits, changes, the file. */
class OrderInfoTableTest {
    private static final long POP = 1_700_000_000_000L;
    private static final long INVISIBLE = 60_000;
    private static final List<Long> BATCH = List.of(100L, 101L, 103L);

    @TempDir
    Path dir;

    private static OrderInfoTable withBatch() {
        OrderInfoTable orders = OrderInfoTable.inMemory();
        orders.recordBatch("T", "cg", 1, "attempt-1", POP, INVISIBLE, BATCH, POP);
        return orders;
    }

    @Test
    void aQueueWithoutBatchIsFree() {
        assertInstanceOf(Free.class, OrderInfoTable.inMemory().blocked("T", "cg", 1, "a", POP));
    }

    @Test
    void anUnackedBatchBlocksOtherAttemptsUntilItsInvisibleTimeEndsAndSaysWhy() {
        OrderInfoTable orders = withBatch();
        Blocked blocked = assertInstanceOf(Blocked.class, orders.blocked("T", "cg", 1, "attempt-2", POP + 1_000));
        assertEquals(POP + INVISIBLE, blocked.visibleAt());
        assertEquals(BATCH, blocked.pendingOffsets());
        assertTrue(blocked.reason().contains("[100, 101, 103]") && blocked.reason().contains("attempt-1"), blocked.reason());
        assertInstanceOf(Blocked.class, orders.blocked("T", "cg", 1, null, POP + INVISIBLE - 1));
        assertInstanceOf(Free.class, orders.blocked("T", "cg", 1, "attempt-2", POP + INVISIBLE));
        assertInstanceOf(Free.class, orders.blocked("T", "cg", 2, "attempt-2", POP + 1), "another queue");
        assertInstanceOf(Free.class, orders.blocked("T", "other-cg", 1, "attempt-2", POP + 1), "another group");
    }

    @Test
    void theSameAttemptIsAnIdempotentReplayOfTheSameOffsetsNotANewDelivery() {
        OrderInfoTable orders = withBatch();
        for (long now : new long[] {POP + 1, POP + 1_000, POP + INVISIBLE - 1}) {
            Replay replay = assertInstanceOf(Replay.class, orders.blocked("T", "cg", 1, "attempt-1", now), "at " + now);
            assertEquals(BATCH, replay.offsets());
            assertEquals(POP, replay.popTime(), "the same receipt handles");
            assertEquals(INVISIBLE, replay.invisibleTime());
            assertEquals(Map.of(100L, 0, 101L, 0, 103L, 0), replay.consumedCounts());
        }
        assertInstanceOf(Free.class, orders.blocked("T", "cg", 1, "attempt-1", POP + INVISIBLE),
            "visible again: the same attempt pops afresh, with handles that are not expired");
        orders.ack("T", "cg", 1, 100, POP, POP + 2);
        assertEquals(List.of(101L, 103L),
            assertInstanceOf(Replay.class, orders.blocked("T", "cg", 1, "attempt-1", POP + 3)).offsets(),
            "only what is still un-acked");
        orders.ack("T", "cg", 1, 101, POP, POP + 4);
        orders.ack("T", "cg", 1, 103, POP, POP + 5);
        assertInstanceOf(Free.class, orders.blocked("T", "cg", 1, "attempt-1", POP + 6), "all acked: a new pop");
    }

    @Test
    void anAckCommitsTheFirstUnackedOffsetOrTheLastPlusOne() {
        OrderInfoTable orders = withBatch();
        assertEquals(new Commit(100), orders.ack("T", "cg", 1, 101, POP, POP + 1));
        assertInstanceOf(Blocked.class, orders.blocked("T", "cg", 1, "attempt-2", POP + 2));
        assertEquals(new Commit(103), orders.ack("T", "cg", 1, 100, POP, POP + 3));
        assertEquals(new Commit(104), orders.ack("T", "cg", 1, 103, POP, POP + 4));
        assertInstanceOf(Free.class, orders.blocked("T", "cg", 1, "attempt-2", POP + 5), "all acked: unblocked at once");
        assertEquals(new Commit(104), orders.ack("T", "cg", 1, 103, POP, POP + 6), "a duplicate ACK changes nothing");
    }

    @Test
    void anAckOutsideTheBatchIsIllegalAndOneOfAnotherPopTimeIsStale() {
        OrderInfoTable orders = withBatch();
        NotInBatch illegal = assertInstanceOf(NotInBatch.class, orders.ack("T", "cg", 1, 102, POP, POP + 1));
        assertTrue(illegal.reason().contains("102"), illegal.reason());
        assertInstanceOf(Stale.class, orders.ack("T", "cg", 1, 100, POP - 1, POP + 1));
        assertInstanceOf(Stale.class, orders.ack("T", "cg", 2, 100, POP, POP + 1), "no batch on that queue");
        assertEquals(BATCH, assertInstanceOf(Blocked.class, orders.blocked("T", "cg", 1, "x", POP + 2)).pendingOffsets(),
            "nothing was acked");
    }

    @Test
    void offsetsPoppedAgainCountOneMoreDeliveryUnlessTheAttemptIsTheSame() {
        OrderInfoTable orders = withBatch();
        assertEquals(Map.of(100L, 1, 101L, 1, 103L, 1, 104L, 0), orders.recordBatch("T", "cg", 1, "attempt-2",
            POP + INVISIBLE, INVISIBLE, List.of(100L, 101L, 103L, 104L), POP + INVISIBLE));
        assertEquals(Map.of(100L, 1, 101L, 1, 103L, 1, 104L, 0), orders.recordBatch("T", "cg", 1, "attempt-2",
            POP + INVISIBLE, INVISIBLE, List.of(100L, 101L, 103L, 104L), POP + INVISIBLE + 1), "the same attempt again");
        assertEquals(Map.of(100L, 2), orders.recordBatch("T", "cg", 1, "attempt-3", POP + 2 * INVISIBLE, INVISIBLE,
            List.of(100L), POP + 2 * INVISIBLE));
        assertEquals(Map.of(105L, 0), orders.recordBatch("T", "cg", 1, "attempt-4", POP + 3 * INVISIBLE, INVISIBLE,
            List.of(105L), POP + 3 * INVISIBLE), "new offsets start at 0");
    }

    @Test
    void aChangedInvisibleTimeMovesThatOffsetsVisibilityAndKeepsThePopTime() {
        OrderInfoTable orders = withBatch();
        long now = POP + 50_000;
        assertEquals(new Changed(POP, 50_000 + 30_000), orders.changeInvisible("T", "cg", 1, 101, POP, 30_000, now));
        orders.ack("T", "cg", 1, 100, POP, now);
        orders.ack("T", "cg", 1, 103, POP, now);
        Blocked blocked = assertInstanceOf(Blocked.class, orders.blocked("T", "cg", 1, "x", POP + INVISIBLE + 1));
        assertEquals(now + 30_000, blocked.visibleAt(), "101 is invisible past the batch's own invisible time");
        assertInstanceOf(Free.class, orders.blocked("T", "cg", 1, "x", now + 30_000));

        assertEquals(new Changed(POP, 50_000), orders.changeInvisible("T", "cg", 1, 101, POP, 0, now),
            "visible at once");
        assertInstanceOf(Free.class, orders.blocked("T", "cg", 1, "x", now));
        assertInstanceOf(NotInBatch.class, orders.changeInvisible("T", "cg", 1, 102, POP, 0, now));
        assertInstanceOf(Stale.class, orders.changeInvisible("T", "cg", 1, 101, POP + 1, 0, now));
    }

    @Test
    void clearingAQueueUnblocksIt() {
        OrderInfoTable orders = withBatch();
        orders.clearQueue("T", "cg", 1);
        assertInstanceOf(Free.class, orders.blocked("T", "cg", 1, "x", POP + 1));
    }

    @Test
    void aBatchMustHoldOneToSixtyFourAscendingOffsets() {
        OrderInfoTable orders = OrderInfoTable.inMemory();
        assertThrows(IllegalArgumentException.class, () -> orders.recordBatch("T", "cg", 1, "a", POP, 1, List.of(), POP));
        assertThrows(IllegalArgumentException.class, () -> orders.recordBatch("T", "cg", 1, "a", POP, 1,
            List.of(3L, 2L), POP));
        assertThrows(IllegalArgumentException.class, () -> orders.recordBatch("T", "cg", 1, "a", POP, 1,
            LongStream.range(0, 65).boxed().toList(), POP));
        orders.recordBatch("T", "cg", 1, "a", POP, 1, LongStream.range(0, 64).boxed().toList(), POP);
        assertEquals(new Commit(0), orders.ack("T", "cg", 1, 63, POP, POP), "bit 63, the last of the long");
        for (long offset = 0; offset < 62; offset++) {
            orders.ack("T", "cg", 1, offset, POP, POP);
        }
        assertEquals(new Commit(64), orders.ack("T", "cg", 1, 62, POP, POP));
    }

    @Test
    void theFileIsRocketMqsLayoutAndSurvivesAReopen() throws Exception {
        OrderInfoTable orders = OrderInfoTable.open(dir);
        orders.recordBatch("T", "cg", 1, "attempt-1", POP, INVISIBLE, BATCH, POP);
        orders.recordBatch("T", "cg", 1, "attempt-2", POP + 1, INVISIBLE, BATCH, POP + 1);
        orders.ack("T", "cg", 1, 101, POP + 1, POP + 2);
        orders.changeInvisible("T", "cg", 1, 103, POP + 1, 5_000, POP + 3);
        orders.persist(POP + 4);

        JsonNode written = JsonConfigFile.MAPPER.readTree(Files.readAllBytes(dir.resolve("consumerOrderInfo.json")));
        JsonNode info = written.path("table").path("T@cg").path("1");
        assertEquals("attempt-2", info.path("a").asText());
        assertEquals(2, info.path("cm").asLong(), "bit 1: offset 101");
        assertEquals(INVISIBLE, info.path("i").asLong());
        assertEquals(POP + 3, info.path("l").asLong());
        assertEquals(List.of(100L, 1L, 3L), List.of(info.path("o").get(0).asLong(), info.path("o").get(1).asLong(),
            info.path("o").get(2).asLong()), "first absolute, the others relative to it");
        assertEquals(1, info.path("oc").path("100").asInt());
        assertEquals(POP + 3 + 5_000, info.path("ot").path("103").asLong());
        assertEquals(POP + 1, info.path("popTime").asLong());

        OrderInfoTable reopened = OrderInfoTable.open(dir);
        Replay replay = assertInstanceOf(Replay.class, reopened.blocked("T", "cg", 1, "attempt-2", POP + 5));
        assertEquals(List.of(100L, 103L), replay.offsets());
        assertEquals(Map.of(100L, 1, 103L, 1), replay.consumedCounts());
        assertEquals(POP + 1 + INVISIBLE, assertInstanceOf(Blocked.class, reopened.blocked("T", "cg", 1, "x",
            POP + 5)).visibleAt());
        assertEquals(new Commit(103), reopened.ack("T", "cg", 1, 100, POP + 1, POP + 6), "101's ACK was kept");
        assertEquals(POP + 3 + 5_000, assertInstanceOf(Blocked.class, reopened.blocked("T", "cg", 1, "x",
            POP + 7)).visibleAt(), "103's changed visibility was kept");
    }

    @Test
    void aFileRocketMqWroteIsRead() throws Exception {
        Files.writeString(dir.resolve("consumerOrderInfo.json"), "{\"table\":{\"T@cg\":{1:{\"a\":\"attempt-1\",\"cm\":0,"
            + "\"i\":60000,\"l\":1796134617729,\"o\":[100,1,3],\"popTime\":1700000000000}}}}");
        OrderInfoTable orders = OrderInfoTable.open(dir);
        Blocked blocked = assertInstanceOf(Blocked.class, orders.blocked("T", "cg", 1, "attempt-2", POP + 1));
        assertEquals(BATCH, blocked.pendingOffsets());
        assertEquals(POP + INVISIBLE, blocked.visibleAt());
        assertEquals(new Commit(100), orders.ack("T", "cg", 1, 103, POP, POP + 2));
    }

    @Test
    void queuesIdleForADayAreDroppedWhenTheTableIsWritten() throws Exception {
        OrderInfoTable orders = OrderInfoTable.open(dir);
        orders.recordBatch("T", "cg", 1, "old", POP, INVISIBLE, BATCH, POP);
        orders.recordBatch("T", "cg", 2, "recent", POP, INVISIBLE, BATCH, POP + OrderInfoTable.IDLE_DROP_MS);
        orders.persist(POP + OrderInfoTable.IDLE_DROP_MS + 1);
        assertInstanceOf(Free.class, orders.blocked("T", "cg", 1, "x", POP + 1));
        assertFalse(orders.blocked("T", "cg", 2, "x", POP + 1) instanceof Free);
        OrderInfoTable reopened = OrderInfoTable.open(dir);
        assertInstanceOf(Free.class, reopened.blocked("T", "cg", 1, "x", POP + 1));
        assertInstanceOf(Blocked.class, reopened.blocked("T", "cg", 2, "x", POP + 1));
    }
}
