package io.basalt.it.security;

import io.basalt.it.SocketPipe;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

import io.netty.handler.ssl.util.SelfSignedCertificate;

/**
 * A loopback listener that speaks TLS only (a self-signed certificate) and relays what it decrypts, in plaintext,
 * to a target: it stands in front of a server that has no TLS of its own, so that a test sees whether a client
 * really used TLS. A client that does not is counted in {@link #refusedHandshakes()} and reaches nothing.
 */
final class TlsOnlyProxy implements AutoCloseable {
    private final ServerSocket server;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger relayed = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private volatile boolean closed;

    TlsOnlyProxy(String targetHostPort) throws Exception {
        String[] hp = targetHostPort.split(":");
        this.target = new InetSocketAddress(hp[0], Integer.parseInt(hp[1]));
        SelfSignedCertificate certificate = new SelfSignedCertificate("localhost");
        char[] password = "proxy".toCharArray();
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("proxy", certificate.key(), password, new Certificate[] {certificate.cert()});
        KeyManagerFactory managers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        managers.init(keys, password);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(managers.getKeyManagers(), null, null);
        SSLServerSocket listener = (SSLServerSocket) context.getServerSocketFactory()
            .createServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.server = listener;
        certificate.delete();
        Thread accept = new Thread(this::acceptLoop, "tls-proxy-accept-" + server.getLocalPort());
        accept.setDaemon(true);
        accept.start();
    }

    String address() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    /** Connections that completed a TLS handshake and were relayed. */
    int relayedConnections() {
        return relayed.get();
    }

    /** Connections whose handshake failed (a plaintext client among them); none of their bytes was relayed. */
    int refusedHandshakes() {
        return refused.get();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                continue;
            }
            sockets.add(client);
            Thread handshake = new Thread(() -> relay((SSLSocket) client), "tls-proxy-handshake-" + server.getLocalPort());
            handshake.setDaemon(true);
            handshake.start();
        }
    }

    private void relay(SSLSocket client) {
        try {
            client.setSoTimeout(10_000);
            client.startHandshake();
            client.setSoTimeout(0);
        } catch (IOException e) {
            refused.incrementAndGet();
            closeQuietly(client);
            return;
        }
        try {
            Socket upstream = new Socket(target.getAddress(), target.getPort());
            sockets.add(upstream);
            client.setTcpNoDelay(true);
            upstream.setTcpNoDelay(true);
            relayed.incrementAndGet();
            pipe(client, upstream);
            pipe(upstream, client);
        } catch (IOException e) {
            closeQuietly(client);
        }
    }

    private void pipe(Socket from, Socket to) {
        SocketPipe.start(from, to, "tls-proxy-pipe-" + server.getLocalPort(), () -> false);
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
