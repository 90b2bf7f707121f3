package io.basalt.ha;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.store.FlushDiskType;

/** The slave refuses what a master may not send; a raw server socket plays the misbehaving master. */
class SlaveValidationTest {
    @TempDir
    Path dir;

    /** Reads a HELLO, answers a WELCOME for an empty epoch-1 master, reads the start request; returns it. */
    private static long handshake(DataInputStream in, DataOutputStream out) throws IOException {
        assertEquals(HAWire.MAGIC, in.readInt());
        assertEquals(HAWire.VERSION, in.readInt());
        in.readLong();
        in.readLong();
        in.readLong();
        in.skipNBytes(in.readUnsignedShort());
        out.writeInt(HAWire.MAGIC);
        out.writeInt(HAWire.VERSION);
        out.writeLong(1);
        out.writeLong(0);
        out.writeLong(1 << 20);
        out.writeInt(1);
        out.writeLong(1);
        out.writeLong(0);
        out.writeShort(0);
        out.flush();
        return in.readLong();
    }

    @Test
    void chunkAtTheWrongOffsetIsRefusedAndTheSlaveReconnects() throws Exception {
        try (ServerSocket fakeMaster = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
             HANode slave = HANode.open(dir, FlushDiskType.ASYNC_FLUSH)) {
            fakeMaster.setSoTimeout(10_000);
            slave.asSlave(HANode.config(), new InetSocketAddress(fakeMaster.getInetAddress(), fakeMaster.getLocalPort()));
            // a chunk at a file start the slave did not ask for, then one inside a file: both gaps
            for (long wrongOffset : new long[] {HANode.FILE_SIZE, 4096}) {
                try (Socket bad = fakeMaster.accept()) {
                    bad.setSoTimeout(10_000);
                    DataInputStream in = new DataInputStream(bad.getInputStream());
                    DataOutputStream out = new DataOutputStream(bad.getOutputStream());
                    assertEquals(0, handshake(in, out), "an empty slave asks for the oldest offset");
                    out.writeLong(wrongOffset);
                    out.writeInt(16);
                    out.write(new byte[16]);
                    out.flush();
                    assertEquals(-1, readUntilClosed(in), "the slave closed the connection");
                }
            }
            try (Socket second = fakeMaster.accept()) {
                second.setSoTimeout(10_000);
                DataInputStream in = new DataInputStream(second.getInputStream());
                DataOutputStream out = new DataOutputStream(second.getOutputStream());
                assertEquals(0, handshake(in, out), "after reconnecting it asks for the same offset again");
            }
            assertEquals(0, slave.store.getMaxPhyOffset(), "nothing was written");
        }
    }

    private static int readUntilClosed(DataInputStream in) {
        try {
            while (true) {
                if (in.read() < 0) {
                    return -1;
                }
            }
        } catch (IOException reset) {
            return -1;
        }
    }
}
