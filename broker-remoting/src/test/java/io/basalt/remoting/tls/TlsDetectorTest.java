package io.basalt.remoting.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;

/**
 * What a server port does with a connection's first byte in each TLS mode: plaintext and TLS apart by the handshake
 * record's {@code 0x16}, refused connections closed with every byte dropped.
 */
class TlsDetectorTest {
    private static final byte[] PLAIN_FRAME = {0, 0, 0, 20, 0, 0, 0, 8, 'h', 'e', 'a', 'd', 'e', 'r', '!', '!'};
    private static final byte[] CLIENT_HELLO_START = {0x16, 0x03, 0x01, 0x00, 0x40};

    private final List<String> refusals = new ArrayList<>();

    private static SslContext context() throws Exception {
        return TlsSettings.of(Map.of("tls.server.mode", "permissive")).serverContext();
    }

    private EmbeddedChannel channel(TlsMode mode) throws Exception {
        return new EmbeddedChannel(new TlsDetector(mode, mode == TlsMode.DISABLED ? null : context(), refusals::add));
    }

    @Test
    void enforcingClosesAPlaintextConnectionAndPassesNothingOn() throws Exception {
        EmbeddedChannel ch = channel(TlsMode.ENFORCING);
        ch.writeInbound(Unpooled.wrappedBuffer(PLAIN_FRAME));
        assertNull(ch.readInbound(), "no byte of a refused connection reaches the request decoder");
        assertFalse(ch.isOpen());
        assertEquals(List.of("plaintext_refused"), refusals);
    }

    @Test
    void permissiveLetsPlaintextThroughUntouched() throws Exception {
        EmbeddedChannel ch = channel(TlsMode.PERMISSIVE);
        ch.writeInbound(Unpooled.wrappedBuffer(PLAIN_FRAME));
        ByteBuf passed = ch.readInbound();
        assertNotNull(passed);
        byte[] bytes = new byte[passed.readableBytes()];
        passed.readBytes(bytes);
        passed.release();
        assertEquals(new String(PLAIN_FRAME, java.nio.charset.StandardCharsets.ISO_8859_1),
            new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1));
        assertNull(ch.pipeline().get(TlsDetector.class), "steps aside after the first byte");
        assertTrue(ch.isOpen());
    }

    @Test
    void permissiveAndEnforcingStartTlsOnAHandshake() throws Exception {
        for (TlsMode mode : new TlsMode[] {TlsMode.PERMISSIVE, TlsMode.ENFORCING}) {
            EmbeddedChannel ch = channel(mode);
            ch.writeInbound(Unpooled.wrappedBuffer(CLIENT_HELLO_START));
            assertNotNull(ch.pipeline().get(SslHandler.class), mode + ": an SSL handler took over");
            assertNull(ch.pipeline().get(TlsDetector.class));
            ch.finishAndReleaseAll();
        }
        assertTrue(refusals.isEmpty());
    }

    @Test
    void disabledClosesATlsConnection() throws Exception {
        EmbeddedChannel ch = channel(TlsMode.DISABLED);
        ch.writeInbound(Unpooled.wrappedBuffer(CLIENT_HELLO_START));
        assertNull(ch.readInbound());
        assertFalse(ch.isOpen());
        assertEquals(List.of("tls_disabled"), refusals);
    }

    @Test
    void settingsRocketMqWouldMisreadAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> TlsSettings.of(Map.of("tls.server.mode", "enforced")));
        IllegalArgumentException required = assertThrows(IllegalArgumentException.class,
            () -> TlsSettings.of(Map.of("tls.server.need.client.auth", "required")));
        assertTrue(required.getMessage().contains("reads 'required' as none"), required.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TlsSettings.of(Map.of("tls.server.certPath", "/nonexistent.pem",
            "tls.server.keyPath", "/nonexistent.key")));
        assertThrows(IllegalArgumentException.class, () -> TlsSettings.of(Map.of("tls.server.mode", "permissive",
            "tls.test.mode.enable", "false")), "no certificate and no generated one");
    }
}
