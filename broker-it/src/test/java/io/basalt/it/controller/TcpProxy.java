package io.basalt.it.controller;

import io.basalt.it.SocketPipe;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP proxy for partition tests. {@link #partition()} is a network cut as a host sees it: live
 * connections stay open but carry nothing in either direction, and new connections are accepted and then left
 * silent (no FIN, no RST: only timeouts tell). {@link #heal()} closes the silent connections, so both ends
 * reconnect, and forwards again.
 */
final class TcpProxy implements AutoCloseable {
    private final ServerSocket server;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean partitioned;
    private volatile boolean closed;

    TcpProxy(String targetHostPort) throws IOException {
        String[] hp = targetHostPort.split(":");
        this.target = new InetSocketAddress(hp[0], Integer.parseInt(hp[1]));
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::acceptLoop, "tcp-proxy-accept-" + server.getLocalPort());
        accept.setDaemon(true);
        accept.start();
    }

    /** {@code 127.0.0.1:port} of the proxy's listener. */
    String address() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    void partition() {
        partitioned = true;
    }

    void heal() {
        partitioned = false;
        for (Socket s : sockets) {
            closeQuietly(s);
        }
        sockets.clear();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = server.accept();
                sockets.add(client);
                if (partitioned) {
                    continue; // accepted, never answered
                }
                Socket upstream = new Socket(target.getAddress(), target.getPort());
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                sockets.add(upstream);
                pipe(client, upstream);
                pipe(upstream, client);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pipe(Socket from, Socket to) {
        SocketPipe.start(from, to, "tcp-proxy-pipe-" + server.getLocalPort(), () -> partitioned || closed);
    }

    private static void closeQuietly(AutoCloseable c) {
        SocketPipe.closeQuietly(c);
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }
}
