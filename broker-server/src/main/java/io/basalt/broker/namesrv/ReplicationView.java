package io.basalt.broker.namesrv;

import io.basalt.ha.BrokerRole;

import io.basalt.ha.Replication;
import io.basalt.ha.slave.HAClient;

/**
 * What the broker's NameServer presence needs of its replication: the role it registers with, whether a
 * master may still take the route, and fencing a master the NameServers show to be deposed. Any thread.
 */
public interface ReplicationView {
    /** True while this broker is a slave; false once it is (or was promoted to) a master. */
    boolean isSlave();

    /** True for a running, unfenced master. */
    boolean acceptsWrites();

    /** Fences this master: it accepts no more writes. No effect on a slave. */
    void fence(String reason);

    /** The remoting address of the master this slave followed last; empty on a master or before any master was reached. */
    String followedMasterAddr();

    /** False while a controller-mode broker waits for its first role: it does not register then. */
    default boolean hasRole() {
        return true;
    }

    /** The brokerId a slave registers with (in controller mode the controller's id). */
    default long slaveBrokerId(long configured) {
        return configured;
    }

    /** The view of a broker's {@link Replication}. */
    static ReplicationView of(Replication replication) {
        return new ReplicationView() {
            @Override
            public boolean isSlave() {
                return replication.role() == BrokerRole.SLAVE;
            }

            @Override
            public boolean acceptsWrites() {
                return replication.acceptsWrites();
            }

            @Override
            public void fence(String reason) {
                replication.fence(reason);
            }

            @Override
            public boolean hasRole() {
                return replication.roleAssigned();
            }

            @Override
            public long slaveBrokerId(long configured) {
                return replication.controllerMode() ? replication.self().brokerId() : configured;
            }

            @Override
            public String followedMasterAddr() {
                HAClient client = replication.client();
                return client == null ? "" : client.lastMasterBrokerAddr();
            }
        };
    }
}
