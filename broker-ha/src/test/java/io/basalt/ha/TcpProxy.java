package io.basalt.ha;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A loopback TCP proxy between a slave and its master for fault tests: it can stall both directions
 * (bytes stay in the kernel buffers, nothing is forwarded), cut every live connection, and slow the
 * master-to-slave direction to small chunks with a pause between them.
 */
final class TcpProxy implements AutoCloseable {
    private final ServerSocket server;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition resumed = lock.newCondition();
    private volatile boolean stalled;
    private volatile int slowChunk;
    private volatile boolean closed;

    TcpProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        start("proxy-accept", this::acceptLoop);
    }

    InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    void stall() {
        stalled = true;
    }

    void resume() {
        lock.lock();
        try {
            stalled = false;
            resumed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Master-to-slave bytes go through in chunks of at most {@code bytes} with a 1 ms gap; 0 = full speed. */
    void slow(int bytes) {
        slowChunk = bytes;
    }

    /** Closes every live connection (the listener stays, so the slave can reconnect). */
    void cut() {
        for (Socket s : sockets) {
            closeQuietly(s);
        }
        sockets.clear();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(target.getAddress(), target.getPort());
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(upstream);
                start("proxy-up", () -> pipe(client, upstream, false));
                start("proxy-down", () -> pipe(upstream, client, true));
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pipe(Socket from, Socket to, boolean masterToSlave) {
        byte[] buf = new byte[64 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            while (!closed) {
                awaitNotStalled();
                int max = masterToSlave && slowChunk > 0 ? slowChunk : buf.length;
                int n = in.read(buf, 0, max);
                if (n < 0) {
                    break;
                }
                awaitNotStalled();
                out.write(buf, 0, n);
                out.flush();
                if (masterToSlave && slowChunk > 0) {
                    lock.lock();
                    try {
                        resumed.awaitNanos(1_000_000);
                    } finally {
                        lock.unlock();
                    }
                }
            }
        } catch (IOException | InterruptedException e) {
            // connection cut or proxy closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void awaitNotStalled() throws InterruptedException {
        lock.lock();
        try {
            while (stalled && !closed) {
                resumed.await();
            }
        } finally {
            lock.unlock();
        }
    }

    private void start(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        closeQuietly(server);
        cut();
        resume();
        for (Thread t : threads) {
            try {
                t.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing anyway
        }
    }
}
