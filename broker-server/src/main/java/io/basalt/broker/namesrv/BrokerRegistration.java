package io.basalt.broker.namesrv;

import io.basalt.remoting.protocol.CommandHeader;

/**
 * Who registers: RocketMQ's {@code RegisterBrokerRequestHeader} and {@code UnRegisterBrokerRequestHeader}
 * fields that do not change between registrations.
 *
 * @param brokerAddr   the address clients reach the broker at, {@code brokerIP1:listenPort}
 * @param haServerAddr the address slaves replicate from, {@code brokerIP2:haListenPort} (RocketMQ's master registers
 *                     the same; the NameServers hand it to slaves without haMasterAddress)
 */
public record BrokerRegistration(String clusterName, String brokerName, long brokerId, String brokerAddr,
                                 String haServerAddr) {

    /** The same broker registering under another brokerId (a promoted slave registers as 0). */
    public BrokerRegistration withBrokerId(long id) {
        return new BrokerRegistration(clusterName, brokerName, id, brokerAddr, haServerAddr);
    }

    /** The same broker with its HA port bound at {@code port}. */
    public BrokerRegistration withHaListenPort(int port) {
        int colon = haServerAddr.lastIndexOf(':');
        String host = colon < 0 ? haServerAddr : haServerAddr.substring(0, colon);
        return new BrokerRegistration(clusterName, brokerName, brokerId, brokerAddr, host + ":" + port);
    }

    /** REGISTER_BROKER's header, as 5.2.0 sends it: plain body, no acting master, no heartbeat timeout. */
    CommandHeader registerHeader(int bodyCrc32) {
        return new CommandHeader() {
            @Override
            public void encode(FieldWriter out) {
                out.put("brokerName", brokerName);
                out.put("brokerAddr", brokerAddr);
                out.put("clusterName", clusterName);
                out.put("haServerAddr", haServerAddr);
                out.put("brokerId", Long.toString(brokerId));
                out.put("enableActingMaster", "false");
                out.put("compressed", "false");
                out.put("bodyCrc32", Integer.toString(bodyCrc32));
            }

            @Override
            public boolean writtenAheadOfExtFields() {
                return false;
            }
        };
    }

    /** UNREGISTER_BROKER's header. */
    CommandHeader unregisterHeader() {
        return new CommandHeader() {
            @Override
            public void encode(FieldWriter out) {
                out.put("brokerName", brokerName);
                out.put("brokerAddr", brokerAddr);
                out.put("clusterName", clusterName);
                out.put("brokerId", Long.toString(brokerId));
            }

            @Override
            public boolean writtenAheadOfExtFields() {
                return false;
            }
        };
    }
}
