package io.basalt.ha;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.store.FlushDiskType;
import io.basalt.store.PutMessageStatus;

/** The master refuses what a slave may not say; a raw socket plays the misbehaving slave. */
class MasterValidationTest {
    @TempDir
    Path dir;

    private static Socket hello(HANode master, DataOutputStream[] out, DataInputStream[] in) throws IOException {
        Socket s = new Socket("127.0.0.1", master.master.localPort());
        s.setSoTimeout(10_000);
        out[0] = new DataOutputStream(s.getOutputStream());
        in[0] = new DataInputStream(s.getInputStream());
        out[0].writeInt(HAWire.MAGIC);
        out[0].writeInt(HAWire.VERSION);
        out[0].writeLong(0);
        out[0].writeLong(0);
        out[0].writeLong(2);
        out[0].writeShort(0);
        out[0].flush();
        assertEquals(HAWire.MAGIC, in[0].readInt());
        assertEquals(HAWire.VERSION, in[0].readInt());
        in[0].readLong();
        in[0].readLong();
        in[0].readLong();
        int n = in[0].readInt();
        in[0].skipNBytes(16L * n);
        in[0].skipNBytes(in[0].readUnsignedShort());
        return s;
    }

    private static void assertClosedByMaster(DataInputStream in) throws IOException {
        while (true) {
            int b;
            try {
                b = in.read();
            } catch (IOException reset) {
                return;
            }
            if (b < 0) {
                return;
            }
        }
    }

    @Test
    void requestBeyondTheMastersEndIsRefused() throws Exception {
        try (HANode master = HANode.open(dir, FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), true)) {
            master.store.asyncPutMessage(HANode.message("T", 0, "x", 100, false)).join();
            DataOutputStream[] out = new DataOutputStream[1];
            DataInputStream[] in = new DataInputStream[1];
            try (Socket s = hello(master, out, in)) {
                out[0].writeLong(master.store.getMaxPhyOffset() + 1_000_000);
                out[0].flush();
                assertClosedByMaster(in[0]);
            }
        }
    }

    @Test
    void requestBelowTheMastersOldestOffsetIsRefused() throws Exception {
        try (HANode master = HANode.open(dir, FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), false)) {
            master.putMany("T", 0, 3000, 1024);
            // the dispatcher may still be reading the first file, which keeps it
            await().atMost(ofSeconds(30)).until(() -> master.store.deleteCommitLogFilesNow(1000) > 0);
            long min = master.store.getMinPhyOffset();
            assertTrue(min > 0, "retention removed the first files");
            DataOutputStream[] out = new DataOutputStream[1];
            DataInputStream[] in = new DataInputStream[1];
            try (Socket s = hello(master, out, in)) {
                // the last offset of a deleted file: a slave that would have a gap before the master's log
                out[0].writeLong(min - 1);
                out[0].flush();
                assertClosedByMaster(in[0]);
            }
            assertTrue(master.master.slaves().isEmpty());
            try (Socket s = hello(master, out, in)) {
                out[0].writeLong(min);
                out[0].flush();
                await().atMost(ofSeconds(10)).until(() -> master.master.slaves().size() == 1);
                assertEquals(min, in[0].readLong(), "the first chunk starts at the oldest offset held");
            }
        }
    }

    @Test
    void ackBeyondWhatWasSentIsRefusedAndNeverAcknowledgesAPut() throws Exception {
        try (HANode master = HANode.open(dir, FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), true)) {
            DataOutputStream[] out = new DataOutputStream[1];
            DataInputStream[] in = new DataInputStream[1];
            try (Socket s = hello(master, out, in)) {
                out[0].writeLong(0);
                out[0].flush();
                await().atMost(ofSeconds(10)).until(() -> master.master.slaves().size() == 1);
                // a bogus ack far ahead (apache/rocketmq#3015): refused, the connection closed
                out[0].writeLong(Long.MAX_VALUE / 2);
                out[0].flush();
                assertClosedByMaster(in[0]);
            }
            await().atMost(ofSeconds(10)).until(() -> master.master.slaves().isEmpty());
            assertEquals(PutMessageStatus.SLAVE_NOT_AVAILABLE,
                master.put("T", 0, 100).status(), "the bogus ack acknowledged nothing");
        }
    }

    @Test
    void garbageInsteadOfHelloIsRefused() throws Exception {
        try (HANode master = HANode.open(dir, FlushDiskType.ASYNC_FLUSH).asMaster(HANode.config(), false);
             Socket s = new Socket("127.0.0.1", master.master.localPort())) {
            s.setSoTimeout(10_000);
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeLong(12345);
            out.writeLong(0);
            out.writeLong(0);
            out.flush();
            assertClosedByMaster(new DataInputStream(s.getInputStream()));
            assertTrue(master.master.slaves().isEmpty());
        }
    }
}
