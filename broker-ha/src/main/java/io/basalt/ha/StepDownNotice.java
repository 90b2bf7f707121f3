package io.basalt.ha;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;

/**
 * Tells the master a promoted slave used to follow that a newer epoch has begun, so that a master
 * which is still alive stops accepting writes at once instead of when a slave of the new epoch
 * happens to reach it. The notice is the HA handshake's HELLO carrying the new epoch
 * ({@link HAWire}, step 1): a master older than it fences itself and closes the connection.
 *
 * <p>Best effort: a dead or unreachable master is told nothing (it fences when it meets a slave of
 * the new epoch), and a master that answers with a WELCOME was not older and stays as it is.
 */
final class StepDownNotice {
    /** What the old master did with the notice. */
    enum Outcome {
        /** It closed the connection without a WELCOME: it fenced itself. */
        FENCED,
        /** It could not be reached or did not answer in time. */
        UNREACHABLE,
        /** It answered with a WELCOME: its epoch is not older than the notice's. */
        NOT_DEPOSED
    }

    private StepDownNotice() {
    }

    static Outcome send(InetSocketAddress oldMaster, Peer self, long newEpoch, long maxOffset, int timeoutMs) {
        ByteBuf hello = HAWire.encodeHello(UnpooledByteBufAllocator.DEFAULT,
            new HAWire.Hello(newEpoch, maxOffset, self.brokerId(), self.brokerAddr()));
        byte[] bytes = ByteBufUtil.getBytes(hello);
        hello.release();
        try (Socket socket = new Socket()) {
            socket.connect(oldMaster, timeoutMs);
            socket.setSoTimeout(timeoutMs);
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            return in.read() == -1 ? Outcome.FENCED : Outcome.NOT_DEPOSED;
        } catch (IOException e) {
            // refused, timed out (SocketTimeoutException) or reset
            return Outcome.UNREACHABLE;
        }
    }
}
