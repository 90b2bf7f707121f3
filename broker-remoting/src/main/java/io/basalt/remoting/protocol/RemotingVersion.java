package io.basalt.remoting.protocol;

/**
 * The {@code version} values of the command header: the ordinal of RocketMQ's {@code MQVersion.Version}
 * constant of the speaking release.
 */
public final class RemotingVersion {
    /** RocketMQ 5.1.4; peers newer than this understand {@link ResponseCode#GO_AWAY}. */
    public static final int V5_1_4 = 441;
    /** RocketMQ 5.2.0, the release Basalt speaks for. */
    public static final int V5_2_0 = 453;
    /** The version Basalt writes into every command it creates. */
    public static final int CURRENT = V5_2_0;

    private RemotingVersion() {
    }
}
