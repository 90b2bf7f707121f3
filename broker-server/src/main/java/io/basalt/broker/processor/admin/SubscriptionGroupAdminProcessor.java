package io.basalt.broker.processor.admin;

import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.processor.RequestFields;
import io.basalt.broker.protocol.GroupForbidden;
import io.basalt.broker.protocol.Json;
import io.basalt.remoting.json.JsonException;
import io.basalt.broker.protocol.SubscriptionGroupWrapper;
import io.basalt.broker.subscription.GroupValidator;
import io.basalt.broker.subscription.SubscriptionGroupConfig;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumer group administration as RocketMQ's {@code AdminBrokerProcessor} does it:
 * UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (body: a {@code SubscriptionGroupConfig}), GET_ALL_SUBSCRIPTIONGROUP_CONFIG
 * (answers a {@code SubscriptionGroupWrapper}, which {@code examineSubscriptionGroupConfig} reads),
 * GET_SUBSCRIPTIONGROUP_CONFIG (header {@code group}), DELETE_SUBSCRIPTIONGROUP (headers {@code groupName},
 * {@code cleanOffset}) and UPDATE_AND_GET_GROUP_FORBIDDEN (headers {@code group}, {@code topic} and, to change it,
 * {@code readable}; answers a {@code GroupForbidden}). Safe for concurrent calls.
 */
public final class SubscriptionGroupAdminProcessor extends ImmediateAdminProcessor {
    private static final Logger log = LoggerFactory.getLogger(SubscriptionGroupAdminProcessor.class);

    private final SubscriptionGroupManager groups;
    private final ConsumerOffsetManager offsets;

    public SubscriptionGroupAdminProcessor(SubscriptionGroupManager groups, ConsumerOffsetManager offsets) {
        this.groups = groups;
        this.offsets = offsets;
    }

    @Override
    protected RemotingCommand answer(RemotingCommand request, RequestFields fields, RequestContext context)
        throws RequestFields.BadRequestException, IOException {
        return switch (request.code()) {
            case RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP -> updateAndCreate(request, context);
            case RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG -> all();
            case RequestCode.GET_SUBSCRIPTIONGROUP_CONFIG -> one(fields.requireString("group"));
            case RequestCode.DELETE_SUBSCRIPTIONGROUP -> delete(fields, context);
            case RequestCode.UPDATE_AND_GET_GROUP_FORBIDDEN -> forbidden(fields, context);
            default -> null;
        };
    }

    private RemotingCommand updateAndCreate(RemotingCommand request, RequestContext context) throws IOException {
        if (request.body() == null || request.body().length == 0) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "the request has no SubscriptionGroupConfig body");
        }
        SubscriptionGroupConfig config;
        try {
            config = SubscriptionGroupWrapper.decodeConfig(request.body());
        } catch (JsonException e) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "bad SubscriptionGroupConfig body: " + e.getMessage());
        }
        String invalid = GroupValidator.invalidReason(config.groupName());
        if (invalid != null) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, invalid);
        }
        if (config.retryQueueNums() <= 0) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "retryQueueNums (" + config.retryQueueNums()
                + ") of group[" + config.groupName() + "] must be positive: it is the queue count of its retry topic");
        }
        // RocketMQ 5.2.0 defines no group attribute, so its AttributeUtil refuses every key
        if (!config.attributes().isEmpty()) {
            String key = config.attributes().keySet().iterator().next();
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "unsupported key: "
                + (key.startsWith("+") || key.startsWith("-") ? key.substring(1) : key));
        }
        Optional<SubscriptionGroupConfig> existing = groups.get(config.groupName());
        groups.createOrUpdate(existing.map(old -> config.withAttributes(old.attributes())).orElse(config));
        log.info("subscription group {} {} by {}", config.groupName(), existing.isEmpty() ? "created" : "updated",
            context.remoteAddress());
        return RemotingCommand.response(ResponseCode.SUCCESS, null);
    }

    private RemotingCommand all() {
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(groups.snapshot().encode());
        return response;
    }

    private RemotingCommand one(String group) {
        Optional<SubscriptionGroupConfig> config = groups.get(group);
        if (config.isEmpty()) {
            return RemotingCommand.response(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, "No group in this broker: " + group);
        }
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(Json.encode(SubscriptionGroupWrapper.toJson(config.get())));
        return response;
    }

    private RemotingCommand delete(RequestFields fields, RequestContext context) throws RequestFields.BadRequestException,
        IOException {
        String group = fields.requireString("groupName");
        boolean existed = groups.delete(group);
        if (fields.bool("cleanOffset", false)) {
            offsets.removeGroup(group);
        }
        if (existed) {
            log.info("subscription group {} deleted by {}", group, context.remoteAddress());
        } else {
            log.warn("deleting subscription group {} asked by {}: it does not exist", group, context.remoteAddress());
        }
        return RemotingCommand.response(ResponseCode.SUCCESS, null);
    }

    private RemotingCommand forbidden(RequestFields fields, RequestContext context) throws RequestFields.BadRequestException,
        IOException {
        String group = fields.requireString("group");
        String topic = fields.requireString("topic");
        Boolean readable = fields.bool("readable");
        if (readable != null) {
            groups.setReadForbidden(group, topic, !readable);
            log.info("group {} {} read topic {}, set by {}", group, readable ? "may" : "may not", topic,
                context.remoteAddress());
        }
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(new GroupForbidden(group, topic, !groups.isReadForbidden(group, topic)).encode());
        return response;
    }
}
