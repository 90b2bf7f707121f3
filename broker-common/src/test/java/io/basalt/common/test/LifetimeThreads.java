package io.basalt.common.test;

/**
 * Starts the threads a library keeps for the rest of the JVM once something made it start them (a
 * static scheduler, say), before the first test runs, so that whichever test happens to trigger
 * them first is not blamed for a leak. A module lists its implementations in its test resources'
 * {@code META-INF/services/io.basalt.common.test.LifetimeThreads}; {@link LeakCheckExtension} runs
 * each once per JVM.
 */
public interface LifetimeThreads {
    void start() throws Exception;
}
