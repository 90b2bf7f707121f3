package io.basalt.broker.controller;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.broker.controller.ControllerApi.ReplicaInfo;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;

/**
 * The Controller's one-way push after an election, 1008 NOTIFY_BROKER_ROLE_CHANGED: header {@code masterAddress},
 * {@code masterBrokerId}, {@code masterEpoch}, {@code syncStateSetEpoch}; body SyncStateSet. Handed to the role
 * manager, which applies it only when its epoch is newer than the one it knows.
 */
public final class RoleChangeNotifyProcessor implements RequestProcessor {
    public static final int NOTIFY_BROKER_ROLE_CHANGED = 1008;
    private static final Logger log = LoggerFactory.getLogger(RoleChangeNotifyProcessor.class);

    private final Consumer<ReplicaInfo> roleChanges;

    public RoleChangeNotifyProcessor(Consumer<ReplicaInfo> roleChanges) {
        this.roleChanges = roleChanges;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        try {
            roleChanges.accept(ControllerCodec.replicaInfo(request.extFields(), request.body()));
            return CompletableFuture.completedFuture(RemotingCommand.response(ResponseCode.SUCCESS, null));
        } catch (ControllerException e) {
            log.warn("unreadable NOTIFY_BROKER_ROLE_CHANGED: {}", e.getMessage());
            return CompletableFuture.completedFuture(RemotingCommand.response(ResponseCode.SYSTEM_ERROR,
                "unreadable NOTIFY_BROKER_ROLE_CHANGED: " + e.getMessage()));
        }
    }
}
