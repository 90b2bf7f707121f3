package io.basalt.store;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the store's shutdown as named steps, in order, and keeps going after one fails (as Agrona's
 * {@code CloseHelper} does): each failure is logged with its step's name and the later ones are
 * attached to the first as suppressed. The store asks {@link #failed()} before it removes the
 * {@code abort} marker. Lifecycle thread only.
 */
final class ShutdownSteps {
    private static final Logger LOG = LoggerFactory.getLogger(ShutdownSteps.class);

    /** One step's work. */
    @FunctionalInterface
    interface Step {
        void run() throws IOException;
    }

    /**
     * Told as each step's work is done, by name; tests record the order or make the step fail by
     * throwing (its work, closing files say, has then happened, as with a real I/O error at its end).
     */
    @FunctionalInterface
    interface Hook {
        Hook NONE = step -> { };

        void afterStep(String step) throws IOException;
    }

    private final Hook hook;
    private final List<String> ran = new ArrayList<>();
    private Exception failure;

    ShutdownSteps(Hook hook) {
        this.hook = hook;
    }

    /** Runs {@code step} (then the hook); a failure is logged and remembered, never thrown. */
    void run(String name, Step step) {
        ran.add(name);
        try {
            step.run();
            hook.afterStep(name);
        } catch (IOException | RuntimeException e) {
            LOG.error("Store shutdown: {} failed: {}", name, e.toString());
            if (failure == null) {
                failure = e;
            } else {
                failure.addSuppressed(e);
            }
        }
    }

    boolean failed() {
        return failure != null;
    }

    /** The first failure with the later ones suppressed, or null. */
    Exception failure() {
        return failure;
    }

    /** The steps run so far, in order. */
    List<String> ran() {
        return List.copyOf(ran);
    }
}
