/** What every Basalt module builds on: the service thread base class. */
module io.basalt.common {
    requires org.slf4j;

    exports io.basalt.common.service;
}
