package io.basalt.broker.topic;

/**
 * RocketMQ's {@code brokerPermission} (bits READ 4, WRITE 2, INHERIT 1; default 6), changeable while the broker
 * runs, and the write wipe a NameServer applies to this broker's routes (WIPE_WRITE_PERM_OF_BROKER, served when the
 * broker is its own NameServer). What it changes, as in RocketMQ 5.2.0:
 * <ul>
 *   <li>without READ or WRITE, every topic is registered with the NameServers with {@code perm & brokerPermission},
 *   so routes show the broker read-only (producers send elsewhere) or write-only;</li>
 *   <li>without WRITE the broker refuses sends to order topics and message send-backs (other sends are still
 *   taken: a client whose route is not yet refreshed loses nothing);</li>
 *   <li>without READ it refuses every pull (NO_PERMISSION, forbiddenType BROKER_FORBIDDEN).</li>
 * </ul>
 * Thread-safe: the values are read on every request.
 */
public final class BrokerPermission {

    /** RocketMQ's {@code ForbiddenType.BROKER_FORBIDDEN}, the pull response's {@code forbiddenType}. */
    public static final int BROKER_FORBIDDEN = 1;
    public static final int DEFAULT = Perm.READ | Perm.WRITE;

    private volatile int permission = DEFAULT;
    private volatile String brokerHost = "";
    private volatile boolean writeWiped;

    /** Sets the permission and the host named in refusals ({@code brokerIP1}). */
    public void configure(int permission, String brokerHost) {
        this.permission = permission;
        this.brokerHost = brokerHost;
    }

    public void set(int permission) {
        this.permission = permission;
    }

    public int permission() {
        return permission;
    }

    public boolean readable() {
        return (permission & Perm.READ) != 0;
    }

    public boolean writable() {
        return (permission & Perm.WRITE) != 0;
    }

    /** A topic's perm as this broker registers it with its NameServers (RocketMQ masks only without READ or WRITE). */
    public int registeredPerm(int topicPerm) {
        int broker = permission;
        boolean full = (broker & Perm.READ) != 0 && (broker & Perm.WRITE) != 0;
        return full ? topicPerm : topicPerm & broker;
    }

    /** A topic's perm in the routes this broker answers as its own NameServer: registered, less a wiped WRITE. */
    public int routePerm(int topicPerm) {
        int registered = registeredPerm(topicPerm);
        return writeWiped ? registered & ~Perm.WRITE : registered;
    }

    /** WIPE_WRITE_PERM_OF_BROKER: routes show every topic without WRITE until {@link #addWrite()} or a restart. */
    public void wipeWrite() {
        writeWiped = true;
    }

    /** ADD_WRITE_PERM_OF_BROKER: undoes {@link #wipeWrite()}. */
    public void addWrite() {
        writeWiped = false;
    }

    public boolean writeWiped() {
        return writeWiped;
    }

    /** RocketMQ's refusal, "the broker[host] {action} message is forbidden" ({@code action}: sending, pulling). */
    public String forbidden(String action) {
        return "the broker[" + brokerHost + "] " + action + " message is forbidden (brokerPermission=" + permission + ")";
    }
}
