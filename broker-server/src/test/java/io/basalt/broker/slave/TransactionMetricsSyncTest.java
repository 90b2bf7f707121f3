package io.basalt.broker.slave;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import io.basalt.broker.transaction.TransactionMetrics;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a slave does with the master's GET_TRANSACTION_METRICS answer. */
class TransactionMetricsSyncTest {
    @TempDir
    Path dir;

    private static RemotingCommand answer(int code, byte[] body) {
        RemotingCommand response = RemotingCommand.response(code, code == ResponseCode.SUCCESS ? null : "not supported");
        response.setBody(body);
        return response;
    }

    @Test
    void theMastersPendingCountsReplaceTheSlavesAndAreWritten() throws IOException {
        TransactionMetrics master = new TransactionMetrics(dir.resolve("master"), () -> 1_000);
        master.halfStored("A");
        master.halfStored("A");
        master.halfStored("B");
        master.decided("B");
        TransactionMetrics slave = new TransactionMetrics(dir.resolve("slave"), () -> 2_000);
        slave.halfStored("Old");
        Files.createDirectories(dir.resolve("slave"));

        new TransactionMetricsSync(slave).apply(answer(ResponseCode.SUCCESS, master.encode()));

        assertEquals(Map.of("A", 2L, "B", 0L), slave.pendingByTopic());
        String written = Files.readString(slave.path(), StandardCharsets.UTF_8);
        assertTrue(written.contains("\"transactionCount\"") && written.contains("\"A\""), written);
        TransactionMetrics reloaded = new TransactionMetrics(dir.resolve("slave"), () -> 3_000);
        reloaded.load();
        assertEquals(2L, reloaded.pending("A"));
    }

    @Test
    void aRocketMqMasterIsNoFailureAndAnotherBodyIsOne() throws IOException {
        TransactionMetrics slave = new TransactionMetrics(dir, () -> 1_000);
        slave.halfStored("A");
        TransactionMetricsSync sync = new TransactionMetricsSync(slave);
        sync.apply(answer(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, null));
        assertEquals(1L, slave.pending("A"));
        assertThrows(IOException.class, () -> sync.apply(answer(ResponseCode.SUCCESS,
            "{\"offsetTable\":{}}".getBytes(StandardCharsets.UTF_8))));
        assertEquals(1L, slave.pending("A"));
    }
}
