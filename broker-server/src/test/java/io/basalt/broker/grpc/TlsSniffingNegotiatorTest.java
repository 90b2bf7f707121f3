package io.basalt.broker.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TlsSniffingNegotiatorTest {
    @Test
    void theFirstByteSaysWhatConnected() {
        assertEquals(TlsSniffingNegotiator.Kind.TLS, TlsSniffingNegotiator.classify(0x16));
        assertEquals(TlsSniffingNegotiator.Kind.PLAINTEXT_HTTP2, TlsSniffingNegotiator.classify('P'));
        assertEquals(TlsSniffingNegotiator.Kind.REMOTING, TlsSniffingNegotiator.classify(0));
        assertEquals(TlsSniffingNegotiator.Kind.UNKNOWN, TlsSniffingNegotiator.classify('G'));
    }
}
