package io.basalt.broker.processor;

import io.basalt.ha.BrokerRole;

import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.ha.Replication;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;

/**
 * Basalt's admin request that promotes a slave to master without a restart (RocketMQ has no classic
 * equivalent). Request code {@link #PROMOTE_TO_MASTER}; ext fields {@code role} (ASYNC_MASTER or
 * SYNC_MASTER, default ASYNC_MASTER) and {@code expectedEpoch} (the epoch the operator believes the
 * slave follows; a mismatch is refused, so two promotions from the same view cannot both succeed).
 * Success: remark {@code epoch=<new epoch>}; refusal: SYSTEM_ERROR with the reason.
 */
public final class PromoteToMasterProcessor implements RequestProcessor {
    /** Outside RocketMQ's request-code range. */
    public static final int PROMOTE_TO_MASTER = 10101;
    private static final Logger LOG = LoggerFactory.getLogger(PromoteToMasterProcessor.class);

    private final Replication replication;
    private final Supplier<Optional<String>> otherMaster;
    private final Runnable onPromoted;

    /**
     * @param otherMaster asked before promoting: why another master already serves the group (another
     *                    slave was promoted), or empty
     * @param onPromoted  run after a successful promotion (the broker registers again as master)
     */
    public PromoteToMasterProcessor(Replication replication, Supplier<Optional<String>> otherMaster,
                                    Runnable onPromoted) {
        this.replication = replication;
        this.otherMaster = otherMaster;
        this.onPromoted = onPromoted;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        Map<String, String> ext = request.extFields() == null ? Map.of() : request.extFields();
        BrokerRole role;
        long expectedEpoch;
        try {
            role = BrokerRole.valueOf(ext.getOrDefault("role", "ASYNC_MASTER"));
            expectedEpoch = Long.parseLong(ext.getOrDefault("expectedEpoch", "-1"));
        } catch (IllegalArgumentException e) {
            return done(ResponseCode.SYSTEM_ERROR, "bad promote request: " + e.getMessage());
        }
        if (replication.role() == BrokerRole.SLAVE) {
            Optional<String> other = otherMaster.get();
            if (other.isPresent()) {
                return done(ResponseCode.SYSTEM_ERROR, "promotion refused: " + other.get());
            }
        }
        try {
            long epoch = replication.promote(role, expectedEpoch);
            onPromoted.run();
            return done(ResponseCode.SUCCESS, "epoch=" + epoch);
        } catch (IllegalStateException | IllegalArgumentException e) {
            return done(ResponseCode.SYSTEM_ERROR, "promotion refused: " + e.getMessage());
        } catch (IOException e) {
            LOG.error("promotion failed: {}", e.toString());
            return done(ResponseCode.SYSTEM_ERROR, "promotion failed: " + e);
        }
    }

    private static CompletableFuture<RemotingCommand> done(int code, String remark) {
        return CompletableFuture.completedFuture(RemotingCommand.response(code, remark));
    }
}
