package io.basalt.ha;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The replication protocols a Basalt broker speaks on its HA port, as a master's answer to
 * GET_HA_PROTOCOLS lists them and as slave status shows them.
 */
public enum ReplicaProtocol {
    /** Basalt's own wire ({@link HAWire}): a handshake with epochs and peer identity, then the classic stream. */
    BASALT,
    /** RocketMQ's classic protocol: 8-byte offset reports, 12-byte-header frames, no epochs. */
    CLASSIC;

    /** What a Basalt master speaks, in the order a slave prefers them. */
    public static final Set<ReplicaProtocol> SPOKEN = EnumSet.of(BASALT, CLASSIC);

    /** The protocols named in {@code list} (comma-separated); names this broker does not know are skipped. */
    public static Set<ReplicaProtocol> parse(String list) {
        Set<ReplicaProtocol> out = EnumSet.noneOf(ReplicaProtocol.class);
        if (list == null) {
            return out;
        }
        for (String name : list.split(",")) {
            for (ReplicaProtocol p : values()) {
                if (p.name().equals(name.trim().toUpperCase(Locale.ROOT))) {
                    out.add(p);
                }
            }
        }
        return out;
    }

    /** {@code protocols} comma-separated, as GET_HA_PROTOCOLS answers them. */
    public static String format(Set<ReplicaProtocol> protocols) {
        return String.join(",", protocols.stream().map(Enum::name).toList());
    }
}
