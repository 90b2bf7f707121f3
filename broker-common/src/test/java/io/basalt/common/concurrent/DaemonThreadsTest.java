package io.basalt.common.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ThreadFactory;

import org.junit.jupiter.api.Test;

class DaemonThreadsTest {
    private static final Runnable NOTHING = () -> { };

    @Test
    void namedGivesEveryThreadTheSameNameAndMakesItADaemon() {
        ThreadFactory f = DaemonThreads.named("FlushAckThread");
        Thread a = f.newThread(NOTHING);
        Thread b = f.newThread(NOTHING);
        assertEquals("FlushAckThread", a.getName());
        assertEquals("FlushAckThread", b.getName());
        assertTrue(a.isDaemon() && b.isDaemon());
    }

    @Test
    void numberedCountsFromOnePerFactory() {
        ThreadFactory f = DaemonThreads.numbered("SendMessageThread_");
        assertEquals("SendMessageThread_1", f.newThread(NOTHING).getName());
        assertEquals("SendMessageThread_2", f.newThread(NOTHING).getName());
        assertEquals("SendMessageThread_1", DaemonThreads.numbered("SendMessageThread_").newThread(NOTHING).getName());
    }

    @Test
    void factoryUsesTheGivenThreadClassAndNamesByIndex() {
        class Special extends Thread {
            Special(Runnable r, String name) {
                super(r, name);
            }
        }
        ThreadFactory f = DaemonThreads.factory(i -> String.format("NettyServerNIOSelector_%d_%d", 3, i), Special::new);
        f.newThread(NOTHING);
        Thread second = f.newThread(NOTHING);
        assertTrue(second instanceof Special);
        assertEquals("NettyServerNIOSelector_3_2", second.getName());
        assertTrue(second.isDaemon());
    }
}
