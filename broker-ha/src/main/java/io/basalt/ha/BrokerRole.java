package io.basalt.ha;

/** RocketMQ's {@code brokerRole}: how a broker takes part in master/slave replication. */
public enum BrokerRole {
    /** Master that acknowledges a send once it is stored locally; slaves catch up asynchronously. */
    ASYNC_MASTER,
    /** Master that acknowledges a send only after a slave has it too. */
    SYNC_MASTER,
    /** Replica of a master's CommitLog. */
    SLAVE;

    /** Whether this role accepts writes from producers. */
    public boolean isMaster() {
        return this != SLAVE;
    }
}
