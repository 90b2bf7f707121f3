package io.basalt.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start-up errors: the broker says what is wrong, exits 1, and leaves its store cleanly closed. */
class StartupFailureTest {
    @TempDir
    Path dir;

    private static Process run(Path dir, String... args) throws Exception {
        return new ProcessBuilder(BrokerProcess.javaCommand(args)).redirectErrorStream(true)
            .redirectOutput(dir.resolve("out.log").toFile()).start();
    }

    @Test
    void aBusyPortStopsStartUpAndTheStoreIsClosedCleanly() throws Exception {
        try (ServerSocket busy = new ServerSocket()) {
            busy.bind(new InetSocketAddress("0.0.0.0", 0));
            BrokerProcess b = BrokerProcess.create(dir.resolve("b"), Map.of("listenPort", Integer.toString(busy.getLocalPort()),
                "logsDir", dir.resolve("logs").toString()));
            Process p = run(dir, "start", "-c", b.confFile().toString());
            try {
                assertTrue(p.waitFor(120, TimeUnit.SECONDS), "exits");
                assertEquals(1, p.exitValue());
            } finally {
                p.destroyForcibly();
            }
            assertTrue(Files.readString(dir.resolve("out.log")).contains("failed to start"), Files.readString(dir.resolve("out.log")));
            assertFalse(Files.exists(b.storeDir().resolve("abort")), "store shut down cleanly");
        }
    }

    @Test
    void aBusyGrpcPortIsNamedAndStopsStartUpCleanly() throws Exception {
        // a second broker of the host left at the first one's grpcServerPort
        try (ServerSocket busy = new ServerSocket()) {
            busy.bind(new InetSocketAddress("0.0.0.0", 0));
            BrokerProcess b = BrokerProcess.create(dir.resolve("g"), Map.of("grpcServerPort",
                Integer.toString(busy.getLocalPort()), "logsDir", dir.resolve("logs-g").toString()));
            Process p = run(dir, "start", "-c", b.confFile().toString());
            try {
                assertTrue(p.waitFor(120, TimeUnit.SECONDS), "exits");
                assertEquals(1, p.exitValue());
            } finally {
                p.destroyForcibly();
            }
            String out = Files.readString(dir.resolve("out.log"));
            assertTrue(out.contains("the gRPC port " + busy.getLocalPort() + " (grpcServerPort)")
                && out.contains("is in use"), out);
            assertFalse(Files.exists(b.storeDir().resolve("abort")), "store shut down cleanly");
        }
    }

    @Test
    void aBadConfigurationValueIsNamedAndStopsStartUp() throws Exception {
        BrokerProcess b = BrokerProcess.create(dir.resolve("b"), Map.of("flushDiskType", "SOMETIMES",
            "logsDir", dir.resolve("logs").toString()));
        Process p = run(dir, "start", "-c", b.confFile().toString());
        try {
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "exits");
            assertEquals(1, p.exitValue());
        } finally {
            p.destroyForcibly();
        }
        String out = Files.readString(dir.resolve("out.log"));
        assertTrue(out.contains("flushDiskType"), out);
    }
}
