/**
 * Basalt's message store. Other modules see only the API package ({@code MessageStore}, its
 * configuration, the message and result types) and the replication SPI ({@code io.basalt.store.spi});
 * the CommitLog, its files, flush services, queues, index and recovery are internal. Consumers compile
 * against this module (see the parent pom's {@code store-api} rule), so a reach into an internal
 * package fails the build.
 */
@SuppressWarnings("requires-automatic")
module io.basalt.store {
    requires transitive io.basalt.common;
    requires org.slf4j;
    requires org.jctools.core;
    requires com.sun.jna;
    requires java.management;
    requires jdk.management;

    exports io.basalt.store;
    exports io.basalt.store.spi;
}
