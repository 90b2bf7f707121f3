package io.basalt.it;

import io.basalt.common.test.LifetimeThreads;
import org.apache.rocketmq.logging.org.slf4j.LoggerFactory;

/**
 * Configures the official RocketMQ code's own (shaded) logging before the first test: it opens its
 * log file (see {@code rmq.logback-test.xml}) once and keeps it for the rest of the JVM, which would
 * otherwise be blamed on whichever test first uses a RocketMQ client.
 */
public final class RocketMqLogging implements LifetimeThreads {
    @Override
    public void start() {
        LoggerFactory.getLogger(RocketMqLogging.class).info("RocketMQ client logging configured for the tests");
    }
}
