package io.basalt.common.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

class ResilientErrorPolicyTest {
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger log = (Logger) LoggerFactory.getLogger(ServiceThread.class);

    @BeforeEach
    void attach() {
        logged.start();
        log.addAppender(logged);
    }

    @AfterEach
    void detach() {
        log.detachAppender(logged);
    }

    @Test
    void theFirstErrorIsLoggedWithItsStackThenAtMostOneLineEveryTenSeconds() {
        long[] now = {1_000};
        ResilientErrorPolicy policy = new ResilientErrorPolicy(() -> now[0]);
        ServiceThread service = new ServiceThreadTest.ScriptedService(policy, false, () -> 0);
        for (int i = 0; i < 100; i++) {
            policy.onError(service, new IllegalStateException("again " + i));
            now[0] += 500;   // 100 errors over 50 s
        }
        List<ILoggingEvent> lines = logged.list.stream().filter(e -> e.getFormattedMessage().contains("ScriptedService"))
            .toList();
        assertEquals(5, lines.size(), "at 0, 10, 20, 30 and 40 s");
        assertNotNull(lines.get(0).getThrowableProxy(), "the first carries the stack trace");
        assertNull(lines.get(1).getThrowableProxy());
        assertTrue(lines.get(1).getFormattedMessage().contains("19 not logged"), lines.get(1).getFormattedMessage());
    }
}
