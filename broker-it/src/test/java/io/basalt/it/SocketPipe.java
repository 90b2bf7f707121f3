package io.basalt.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.function.BooleanSupplier;

/**
 * One direction of a test proxy's relay: a daemon thread copies what {@code from} receives to {@code to} and
 * closes both when either side ends. While {@code cut} is true the bytes read are dropped (a network cut as a
 * host sees it: nothing arrives, nothing fails).
 */
public final class SocketPipe {

    private SocketPipe() {
    }

    public static void start(Socket from, Socket to, String threadName, BooleanSupplier cut) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    while (cut.getAsBoolean() && !from.isClosed()) {
                        Thread.sleep(20);
                    }
                    if (cut.getAsBoolean()) {
                        continue;
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // either side closed, or the proxy was cut, healed or closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, threadName);
        t.setDaemon(true);
        t.start();
    }

    public static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing anyway
        }
    }
}
