package io.basalt.broker.topic;

/** RocketMQ's {@code PermName} bits of topics and brokers. */
public final class Perm {
    public static final int PRIORITY = 8;
    public static final int READ = 4;
    public static final int WRITE = 2;
    public static final int INHERIT = 1;

    private Perm() {
    }
}
