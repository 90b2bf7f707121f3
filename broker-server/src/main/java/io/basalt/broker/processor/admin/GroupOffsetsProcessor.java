package io.basalt.broker.processor.admin;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import io.basalt.broker.client.ClientManager;
import io.basalt.broker.client.ConsumerGroupInfo;
import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.processor.RequestFields;
import io.basalt.broker.protocol.QueryCorrectionOffsetBody;
import io.basalt.broker.topic.TopicConfig;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.MessageStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Committed offsets across groups: CLONE_GROUP_OFFSET ({@code mqadmin cloneGroupOffset}; the admin client sends it
 * to the brokers of {@code %RETRY%<srcGroup>}'s route) and QUERY_CORRECTION_OFFSET ({@link CorrectionOffsets}).
 * Safe for concurrent calls.
 */
public final class GroupOffsetsProcessor implements RequestProcessor {
    private static final Logger log = LoggerFactory.getLogger(GroupOffsetsProcessor.class);

    private final TopicConfigManager topics;
    private final ConsumerOffsetManager offsets;
    private final ClientManager clients;
    private final MessageStore store;

    public GroupOffsetsProcessor(TopicConfigManager topics, ConsumerOffsetManager offsets, ClientManager clients,
                                 MessageStore store) {
        this.topics = topics;
        this.offsets = offsets;
        this.clients = clients;
        this.store = store;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        RequestFields fields = new RequestFields(request);
        RemotingCommand response;
        try {
            response = switch (request.code()) {
                case RequestCode.CLONE_GROUP_OFFSET -> cloneOffsets(fields.requireString("srcGroup"),
                    fields.requireString("destGroup"), fields.string("topic"), fields.bool("offline", false));
                case RequestCode.QUERY_CORRECTION_OFFSET -> correctionOffsets(fields.requireString("topic"),
                    fields.requireString("compareGroup"), fields.string("filterGroups"));
                default -> RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                    "request type " + request.code() + " not supported");
            };
        } catch (RequestFields.BadRequestException e) {
            response = RequestFields.badRequest(e);
        }
        return CompletableFuture.completedFuture(response);
    }

    /**
     * RocketMQ's clone: the given topic, or every topic the source group has offsets for (RocketMQ 5.2.0 then copies
     * nothing, passing the absent topic on; Basalt copies each); a topic this broker does not have, or, unless
     * {@code offline}, one the online source group does not subscribe to, is skipped. The remark says what was copied.
     */
    private RemotingCommand cloneOffsets(String srcGroup, String destGroup, String topic, boolean offline) {
        Set<String> candidates = topic != null ? Set.of(topic) : topicsOf(srcGroup);
        ConsumerGroupInfo live = clients.consumerGroup(srcGroup);
        List<String> copied = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (String name : new TreeSet<>(candidates)) {
            if (topics.get(name) == null) {
                skipped.add(name + " (no such topic on this broker)");
                continue;
            }
            if (!offline && live != null && !live.subscriptions().isEmpty() && live.subscription(name) == null) {
                skipped.add(name + " (the online group " + srcGroup + " does not subscribe to it; use offline)");
                continue;
            }
            int queues = offsets.cloneOffsets(srcGroup, destGroup, name);
            if (queues == 0) {
                skipped.add(name + " (" + srcGroup + " has no offsets)");
            } else {
                copied.add(name + " (" + queues + " queues)");
            }
        }
        log.info("cloned offsets of group {} to group {}: copied {}, skipped {}", srcGroup, destGroup, copied, skipped);
        return RemotingCommand.response(ResponseCode.SUCCESS, "copied " + (copied.isEmpty() ? "nothing" : String.join(", ",
            copied)) + (skipped.isEmpty() ? "" : "; skipped " + String.join(", ", skipped)));
    }

    private Set<String> topicsOf(String group) {
        Set<String> result = new TreeSet<>();
        for (TopicConfig config : topics.all()) {
            if (offsets.groupsOf(config.topicName()).contains(group)) {
                result.add(config.topicName());
            }
        }
        return result;
    }

    private RemotingCommand correctionOffsets(String topic, String compareGroup, String filterGroups) {
        Set<String> filtered = filterGroups == null ? Set.of() : Arrays.stream(filterGroups.split(","))
            .map(String::trim).filter(g -> !g.isEmpty()).collect(Collectors.toSet());
        Map<String, Map<Integer, Long>> byGroup = new LinkedHashMap<>();
        for (String group : offsets.groupsOf(topic)) {
            byGroup.put(group, offsets.queryOffsets(group, topic));
        }
        Map<Integer, Long> result = CorrectionOffsets.compute(byGroup, filtered, offsets.queryOffsets(compareGroup, topic),
            queueId -> store.getMinOffsetInQueue(topic, queueId));
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(new QueryCorrectionOffsetBody(result).encode());
        return response;
    }
}
