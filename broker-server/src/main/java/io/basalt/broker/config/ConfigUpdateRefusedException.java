package io.basalt.broker.config;

/**
 * A runtime configuration update (UPDATE_BROKER_CONFIG, UPDATE_NAMESRV_CONFIG) refused whole: nothing of it was
 * applied or written. The message names every problem.
 */
public final class ConfigUpdateRefusedException extends Exception {
    private static final long serialVersionUID = 1L;
    private final boolean blacklisted;

    ConfigUpdateRefusedException(String message, boolean blacklisted) {
        super(message, null, false, false);
        this.blacklisted = blacklisted;
    }

    /** Whether a blacklisted key was named (RocketMQ answers NO_PERMISSION). */
    public boolean blacklisted() {
        return blacklisted;
    }
}
