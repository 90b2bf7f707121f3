package io.basalt.remoting.netty;

import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;

import java.util.List;
import java.util.stream.Collectors;

/** Fails a test that leaves remoting threads behind. */
final class RemotingThreads {
    private static final List<String> PREFIXES = List.of("NettyBoss", "NettyServer", "NettyClient", "Test");

    private RemotingThreads() {
    }

    static void assertNoneLeft() {
        await().atMost(ofSeconds(10)).until(() -> liveRemotingThreads().isEmpty());
    }

    static List<String> liveRemotingThreads() {
        return Thread.getAllStackTraces().keySet().stream()
            .filter(Thread::isAlive)
            .map(Thread::getName)
            .filter(name -> PREFIXES.stream().anyMatch(name::startsWith))
            .collect(Collectors.toList());
    }
}
