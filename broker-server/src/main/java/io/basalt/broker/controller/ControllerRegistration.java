package io.basalt.broker.controller;

import io.basalt.broker.controller.BrokerIdentityFile.Identity;
import io.basalt.broker.controller.BrokerIdentityFile.PendingIdentity;
import io.basalt.broker.controller.ControllerApi.ReplicaInfo;
import java.io.IOException;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker's registration with the Controller, RocketMQ 5.2.0's steps: the identity file names the controller
 * id if the broker has one; otherwise the id under application in the temp file is applied for again with its
 * check code, or a new one is asked for (1012 GET_NEXT_BROKER_ID), recorded in the temp file with the check code
 * {@code brokerAddr;epochMillis} and applied for (1013 APPLY_BROKER_ID); once granted it goes to the identity file
 * and the temp file is deleted. A check code refused (CONTROLLER_BROKER_ID_INVALID, another broker took the id)
 * deletes the temp file and starts again at 1012. Then 1003 REGISTER_BROKER records the broker's address.
 *
 * <p>Unlike RocketMQ, a broker the Controller has forgotten (its store wiped or the set's metadata cleaned:
 * 1003 answers CONTROLLER_BROKER_NEED_TO_BE_REGISTERED) does not retry forever: it applies for its recorded id
 * again and, if the Controller refuses that id, for a new one, logging a WARN that names the identity file. An
 * identity file of another broker set (cluster or broker name differ from the configuration) stops the
 * registration: the store belongs to another set.
 *
 * <p>Not thread-safe: the broker runs one registration at a time.
 */
public final class ControllerRegistration {
    private static final Logger log = LoggerFactory.getLogger(ControllerRegistration.class);

    /** Refused check codes in a row before giving up (another broker keeps taking the next id). */
    private static final int MAX_APPLICATIONS = 5;

    private final ControllerApi controller;
    private final BrokerIdentityFile identityFile;
    private final String clusterName;
    private final String brokerName;
    private final String brokerAddress;
    private final LongSupplier clock;

    /**
     * @param brokerAddress the broker's remoting address {@code ip:listenPort}, registered with the Controller
     *                      and the first part of the check code
     * @param clock         milliseconds since the epoch, for the check code
     */
    public ControllerRegistration(ControllerApi controller, BrokerIdentityFile identityFile, String clusterName,
        String brokerName, String brokerAddress, LongSupplier clock) {
        this.controller = controller;
        this.identityFile = identityFile;
        this.clusterName = clusterName;
        this.brokerName = brokerName;
        this.brokerAddress = brokerAddress;
        this.clock = clock;
    }

    /** The broker's controller id and what the Controller answered to its registration. */
    public record Registered(long brokerId, ReplicaInfo replicaInfo) {
    }

    /**
     * Runs the steps once: obtains the controller id (from the file or the Controller) and registers.
     *
     * @throws ControllerException the Controller refused or could not be reached; the caller retries later
     * @throws IOException the identity files could not be read or written, or belong to another broker set
     */
    public Registered register() throws ControllerException, IOException {
        Identity identity = identity();
        try {
            return new Registered(identity.brokerId(), controller.register(clusterName, brokerName, identity.brokerId(),
                brokerAddress));
        } catch (ControllerException e) {
            if (e.code() != ControllerResponseCode.BROKER_NEED_TO_BE_REGISTERED) {
                throw e;
            }
        }
        log.warn("the Controller does not know broker {} of {}/{} recorded in {} (its metadata was lost or cleaned): "
            + "applying for id {} again", identity.brokerId(), clusterName, brokerName, identityFile.path(),
            identity.brokerId());
        Identity again;
        try {
            again = apply(new PendingIdentity(clusterName, brokerName, identity.brokerId(), checkCode()));
        } catch (ControllerException e) {
            if (e.code() != ControllerResponseCode.BROKER_ID_INVALID) {
                throw e;
            }
            log.warn("the Controller refused id {} recorded in {} ({}); removing that file and applying for a new id",
                identity.brokerId(), identityFile.path(), e.getMessage());
            identityFile.delete();
            again = allocate();
        }
        return new Registered(again.brokerId(), controller.register(clusterName, brokerName, again.brokerId(),
            brokerAddress));
    }

    /** The granted identity: from the file, or by finishing an application, or by a new one. */
    private Identity identity() throws ControllerException, IOException {
        Optional<Identity> recorded = identityFile.read();
        if (recorded.isPresent()) {
            if (!recorded.get().belongsTo(clusterName, brokerName)) {
                throw new IOException(identityFile.path() + " names broker " + recorded.get().encode() + " but this broker "
                    + "is configured as cluster " + clusterName + ", broker " + brokerName + ": the store belongs to "
                    + "another broker set; fix brokerClusterName/brokerName or use another store");
            }
            return recorded.get();
        }
        Optional<PendingIdentity> pending = identityFile.readTemp();
        if (pending.isPresent() && pending.get().belongsTo(clusterName, brokerName)) {
            try {
                return apply(pending.get());
            } catch (ControllerException e) {
                if (e.code() != ControllerResponseCode.BROKER_ID_INVALID) {
                    throw e;
                }
                log.info("the Controller refused id {} of {} ({}); applying for a new id", pending.get().brokerId(),
                    identityFile.tempPath(), e.getMessage());
                identityFile.deleteTemp();
            }
        } else if (pending.isPresent()) {
            log.warn("{} is an application of another broker set ({}); replacing it", identityFile.tempPath(),
                pending.get().encode());
            identityFile.deleteTemp();
        }
        return allocate();
    }

    /** 1012 then 1013, starting again at 1012 while the check code is refused. */
    private Identity allocate() throws ControllerException, IOException {
        ControllerException refused = null;
        for (int attempt = 0; attempt < MAX_APPLICATIONS; attempt++) {
            long next = controller.nextBrokerId(clusterName, brokerName);
            PendingIdentity pending = new PendingIdentity(clusterName, brokerName, next, checkCode());
            identityFile.writeTemp(pending);
            try {
                return apply(pending);
            } catch (ControllerException e) {
                if (e.code() != ControllerResponseCode.BROKER_ID_INVALID) {
                    throw e;
                }
                refused = e;
                log.info("the Controller refused id {} for {}/{} ({}); asking for the next id", next, clusterName,
                    brokerName, e.getMessage());
                identityFile.deleteTemp();
            }
        }
        throw refused;
    }

    /** 1013 with the pending identity; on success the identity file is written and the temp file deleted. */
    private Identity apply(PendingIdentity pending) throws ControllerException, IOException {
        identityFile.writeTemp(pending);
        controller.applyBrokerId(clusterName, brokerName, pending.brokerId(), pending.registerCheckCode());
        Identity granted = pending.granted();
        identityFile.write(granted);
        identityFile.deleteTemp();
        log.info("the Controller granted broker id {} to {}/{} ({}), recorded in {}", granted.brokerId(), clusterName,
            brokerName, brokerAddress, identityFile.path());
        return granted;
    }

    private String checkCode() {
        return brokerAddress + ";" + clock.getAsLong();
    }
}
