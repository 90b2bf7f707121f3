/** What every Basalt module builds on: the configuration model, the service thread base class, named daemon threads, closing and syncing helpers. */
module io.basalt.common {
    requires org.slf4j;

    exports io.basalt.common.concurrent;
    exports io.basalt.common.config;
    exports io.basalt.common.io;
    exports io.basalt.common.service;
}
