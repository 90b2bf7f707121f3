package io.basalt.broker.processor.admin;

import io.basalt.broker.config.ConfigUpdateRefusedException;
import io.basalt.broker.config.NameServerSettings;
import io.basalt.broker.namesrv.KvConfigStore;
import io.basalt.broker.processor.RequestFields;
import io.basalt.broker.protocol.Json;
import io.basalt.broker.topic.BrokerPermission;
import io.basalt.broker.topic.TopicConfigManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The NameServer administration a broker that is its own NameServer answers, as RocketMQ's NameServer does:
 * <ul>
 *   <li>WIPE_WRITE_PERM_OF_BROKER (205) / ADD_WRITE_PERM_OF_BROKER (327) for this broker's name: the routes it
 *   answers show every topic without / with WRITE again ({@code wipeTopicCount} / {@code addTopicCount}: its
 *   topics; 0 for another broker name), so producers drain off before a restart; the broker's own
 *   brokerPermission is not changed, as a NameServer's wipe does not change the broker;</li>
 *   <li>GET_NAMESRV_CONFIG (319) / UPDATE_NAMESRV_CONFIG (318): {@link NameServerSettings};</li>
 *   <li>PUT/GET/DELETE_KV_CONFIG (100/101/102), GET_KVLIST_BY_NAMESPACE (219): {@link KvConfigStore}.</li>
 * </ul>
 * Safe for concurrent calls.
 */
public final class NameServerAdminProcessor extends ImmediateAdminProcessor {
    private final String brokerName;
    private final TopicConfigManager topics;
    private final NameServerSettings settings;
    private final KvConfigStore kv;

    public NameServerAdminProcessor(String brokerName, TopicConfigManager topics, NameServerSettings settings,
                                    KvConfigStore kv) {
        this.brokerName = brokerName;
        this.topics = topics;
        this.settings = settings;
        this.kv = kv;
    }

    @Override
    protected RemotingCommand answer(RemotingCommand request, RequestFields fields, RequestContext context)
        throws RequestFields.BadRequestException, IOException {
        return switch (request.code()) {
            case RequestCode.WIPE_WRITE_PERM_OF_BROKER -> writePerm(fields.requireString("brokerName"), false);
            case RequestCode.ADD_WRITE_PERM_OF_BROKER -> writePerm(fields.requireString("brokerName"), true);
            case RequestCode.GET_NAMESRV_CONFIG -> getConfig();
            case RequestCode.UPDATE_NAMESRV_CONFIG -> updateConfig(request);
            case RequestCode.PUT_KV_CONFIG -> putKv(fields);
            case RequestCode.GET_KV_CONFIG -> getKv(fields);
            case RequestCode.DELETE_KV_CONFIG -> {
                kv.delete(fields.requireString("namespace"), fields.requireString("key"));
                yield RemotingCommand.response(ResponseCode.SUCCESS, null);
            }
            case RequestCode.GET_KVLIST_BY_NAMESPACE -> kvList(fields.requireString("namespace"));
            default -> null;
        };
    }

    private RemotingCommand writePerm(String name, boolean add) {
        int count = 0;
        if (brokerName.equals(name)) {
            BrokerPermission permission = topics.brokerPermission();
            if (add) {
                permission.addWrite();
            } else {
                permission.wipeWrite();
            }
            count = topics.all().size();
        }
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.putExtField(add ? "addTopicCount" : "wipeTopicCount", Integer.toString(count));
        return response;
    }

    private RemotingCommand getConfig() {
        StringBuilder body = new StringBuilder();
        settings.properties().forEach((key, value) -> body.append(key).append('=').append(value).append('\n'));
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(body.toString().getBytes(StandardCharsets.UTF_8));
        return response;
    }

    private RemotingCommand updateConfig(RemotingCommand request) throws IOException {
        Map<String, String> requested = new LinkedHashMap<>();
        if (request.body() != null) {
            Properties properties = new Properties();
            try {
                properties.load(new StringReader(new String(request.body(), StandardCharsets.UTF_8)));
            } catch (IllegalArgumentException e) {
                return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "string2Properties error: " + e.getMessage());
            }
            properties.stringPropertyNames().forEach(key -> requested.put(key, properties.getProperty(key)));
        }
        if (requested.isEmpty()) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "no key to update in the request body");
        }
        try {
            settings.update(requested);
        } catch (ConfigUpdateRefusedException e) {
            return RemotingCommand.response(e.blacklisted() ? ResponseCode.NO_PERMISSION : ResponseCode.SYSTEM_ERROR,
                e.getMessage());
        }
        return RemotingCommand.response(ResponseCode.SUCCESS, "applied at once and written to " + settings.file());
    }

    private RemotingCommand putKv(RequestFields fields) throws RequestFields.BadRequestException, IOException {
        String namespace = fields.string("namespace");
        String key = fields.string("key");
        if (namespace == null || key == null) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "namespace or key is null");
        }
        kv.put(namespace, key, fields.requireString("value"));
        return RemotingCommand.response(ResponseCode.SUCCESS, null);
    }

    private RemotingCommand getKv(RequestFields fields) throws RequestFields.BadRequestException {
        String namespace = fields.requireString("namespace");
        String key = fields.requireString("key");
        Optional<String> value = kv.get(namespace, key);
        if (value.isEmpty()) {
            return RemotingCommand.response(ResponseCode.QUERY_NOT_FOUND,
                "No config item, Namespace: " + namespace + " Key: " + key);
        }
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.putExtField("value", value.get());
        return response;
    }

    private RemotingCommand kvList(String namespace) {
        Optional<Map<String, String>> entries = kv.namespace(namespace);
        if (entries.isEmpty()) {
            return RemotingCommand.response(ResponseCode.QUERY_NOT_FOUND, "No config item, Namespace: " + namespace);
        }
        Map<String, Object> body = Map.of("table", new java.util.TreeMap<>(entries.get()));
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(Json.encode(body));
        return response;
    }
}
