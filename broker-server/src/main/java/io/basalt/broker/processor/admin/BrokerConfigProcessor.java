package io.basalt.broker.processor.admin;

import io.basalt.broker.config.RuntimeConfiguration;
import io.basalt.broker.config.ConfigUpdateRefusedException;
import io.basalt.broker.protocol.DataVersion;
import io.basalt.broker.protocol.Json;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's configuration as {@code mqadmin getBrokerConfig} / {@code updateBrokerConfig} and the dashboard see
 * it. GET_BROKER_CONFIG (26): every key as {@code key=value} lines sorted by name (secrets left out), with the
 * configuration's DataVersion in the response header {@code version}. UPDATE_BROKER_CONFIG (25): a properties
 * body, applied whole or refused whole by {@link RuntimeConfiguration}: a blacklisted key is NO_PERMISSION "Can not
 * update config in black list." as in RocketMQ; an unknown key, an invalid value or a key that needs a restart is
 * SYSTEM_ERROR naming it (RocketMQ answers SUCCESS and ignores what it cannot set).
 */
public final class BrokerConfigProcessor implements RequestProcessor {
    private static final Logger log = LoggerFactory.getLogger(BrokerConfigProcessor.class);

    private final RuntimeConfiguration configuration;

    public BrokerConfigProcessor(RuntimeConfiguration configuration) {
        this.configuration = configuration;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        RemotingCommand response = switch (request.code()) {
            case RequestCode.GET_BROKER_CONFIG -> get();
            case RequestCode.UPDATE_BROKER_CONFIG -> update(request);
            default -> RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
                "request type " + request.code() + " not supported");
        };
        return CompletableFuture.completedFuture(response);
    }

    private RemotingCommand get() {
        RuntimeConfiguration.Version version = configuration.version();
        StringBuilder body = new StringBuilder();
        configuration.effectiveProperties().forEach((key, value) -> body.append(key).append('=').append(value).append('\n'));
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.setBody(body.toString().getBytes(StandardCharsets.UTF_8));
        response.putExtField("version", new String(Json.encode(
            new DataVersion(0, version.timestamp(), version.counter()).toJson()), StandardCharsets.UTF_8));
        return response;
    }

    private RemotingCommand update(RemotingCommand request) {
        Map<String, String> requested = new LinkedHashMap<>();
        if (request.body() != null) {
            // RocketMQ's client writes the body with properties2String and UTF-8
            Properties properties = new Properties() {
                private static final long serialVersionUID = 1L;

                @Override
                public synchronized Object put(Object key, Object value) {
                    requested.put((String) key, (String) value);
                    return super.put(key, value);
                }
            };
            try {
                properties.load(new StringReader(new String(request.body(), StandardCharsets.UTF_8)));
            } catch (IOException | IllegalArgumentException e) {
                return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "string2Properties error: " + e.getMessage());
            }
        }
        if (requested.isEmpty()) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "no key to update in the request body");
        }
        try {
            RuntimeConfiguration.Update update = configuration.update(requested);
            log.info("UPDATE_BROKER_CONFIG {}: {}", requested.keySet(), update.summary());
            return RemotingCommand.response(ResponseCode.SUCCESS, update.summary());
        } catch (ConfigUpdateRefusedException e) {
            log.warn("UPDATE_BROKER_CONFIG {} refused: {}", requested.keySet(), e.getMessage());
            return RemotingCommand.response(e.blacklisted() ? ResponseCode.NO_PERMISSION : ResponseCode.SYSTEM_ERROR,
                e.getMessage());
        } catch (RuntimeException e) {
            log.error("UPDATE_BROKER_CONFIG {}: written to {} but not applied", requested.keySet(), configuration.file(), e);
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "written to " + configuration.file()
                + " but failed to apply (" + e.getMessage() + "); it applies at the next start");
        } catch (IOException e) {
            log.error("UPDATE_BROKER_CONFIG {}: cannot write {}", requested.keySet(), configuration.file(), e);
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, "nothing changed: cannot write "
                + configuration.file() + " (" + e.getMessage() + ")");
        }
    }
}
