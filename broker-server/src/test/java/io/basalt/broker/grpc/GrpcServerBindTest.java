package io.basalt.broker.grpc;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.BindException;

import org.junit.jupiter.api.Test;

/** A taken gRPC port is recognised whichever transport failed to bind it (StartupFailureTest starts a broker on one). */
class GrpcServerBindTest {
    @Test
    void bothTransportsFailuresToBindATakenPortAreRecognised() {
        assertTrue(GrpcServer.addressInUse(new IOException("Failed to bind", new BindException("Address already in use"))));
        assertTrue(GrpcServer.addressInUse(new IOException("Failed to bind to address /0.0.0.0:8081",
            new IOException("bind(..) failed: Address already in use"))), "native epoll's NativeIoException");
        assertFalse(GrpcServer.addressInUse(new IOException("Failed to bind", new IOException("Permission denied"))));
    }
}
