package io.basalt.broker.auth;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.processor.RequestProcessor;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;

/**
 * ACL 1.0's admin codes as the official 5.2.0 {@code mqadmin} sends them (all data in headers, no bodies):
 *
 * <ul>
 * <li>UPDATE_AND_CREATE_ACL_CONFIG (50, {@code updateAclConfig}): accessKey and secretKey of at least 7 characters;
 *     an existing account is merged in its own file (secretKey when not empty; whiteRemoteAddress, topicPerms,
 *     groupPerms replaced when present; default permissions when not empty; admin always), a new one goes to the
 *     default file. Refused with 209 and the reason.</li>
 * <li>DELETE_ACL_CONFIG (51, {@code deleteAclConfig}): 210 for an unknown accessKey.</li>
 * <li>GET_BROKER_CLUSTER_ACL_INFO (52, {@code clusterAclConfigVersion}): the default file's version, and
 *     {@code allAclFileVersion}, every file's version, which 5.2.0 leaves out so that its own tool fails
 *     (apache/rocketmq#7533).</li>
 * <li>UPDATE_GLOBAL_WHITE_ADDRS_CONFIG (53, {@code updateGlobalWhiteAddr}): replaces a file's global white
 *     addresses; a missing {@code aclFileFullPath} (the tool leaves it out without {@code -p}) means the default
 *     file, where 5.2.0 refuses the request (apache/rocketmq#4151). 211 on failure.</li>
 * </ul>
 *
 * Every file is rewritten atomically and takes effect at once. Only admin accounts get here ({@link AdminCodes});
 * with {@code aclEnable=false} each code is answered with its failure code and the reason (5.2.0 does not answer 52
 * at all, and the tool times out). GET_BROKER_CLUSTER_ACL_CONFIG (54), which returned every secret key up to 5.1.4,
 * stays unsupported, as in 5.2.0. Secret keys are never logged.
 */
public final class AclAdminProcessor implements RequestProcessor {
    private static final Logger log = LoggerFactory.getLogger(AclAdminProcessor.class);
    /** RocketMQ's response codes of the ACL admin codes (shared with POLLING_FULL, POLLING_TIMEOUT, BROKER_NOT_EXIST). */
    static final int UPDATE_AND_CREATE_ACL_CONFIG_FAILED = 209;
    static final int DELETE_ACL_CONFIG_FAILED = 210;
    static final int UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED = 211;

    private final PlainAclFiles files;
    private final String clusterName;
    private final String brokerName;
    private final String brokerAddr;

    /** @param files ACL 1.0's files, null when {@code aclEnable=false} */
    public AclAdminProcessor(PlainAclFiles files, String clusterName, String brokerName, String brokerAddr) {
        this.files = files;
        this.clusterName = clusterName;
        this.brokerName = brokerName;
        this.brokerAddr = brokerAddr;
    }

    @Override
    public CompletableFuture<RemotingCommand> processRequest(RequestContext context, RemotingCommand request) {
        Map<String, String> f = request.extFields() == null ? Map.of() : request.extFields();
        RemotingCommand response = switch (request.code()) {
            case RequestCode.UPDATE_AND_CREATE_ACL_CONFIG -> update(f);
            case RequestCode.DELETE_ACL_CONFIG -> delete(f);
            case RequestCode.GET_BROKER_CLUSTER_ACL_INFO -> info();
            case RequestCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG -> globalWhite(f);
            default -> RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, "not an ACL admin code: "
                + request.code());
        };
        return CompletableFuture.completedFuture(response);
    }

    private static final String DISABLED = "ACL is not enabled on this broker (aclEnable=false)";

    private RemotingCommand update(Map<String, String> f) {
        if (files == null) {
            return RemotingCommand.response(UPDATE_AND_CREATE_ACL_CONFIG_FAILED, DISABLED);
        }
        String accessKey = f.get("accessKey");
        try {
            String secretKey = f.get("secretKey");
            key("accessKey", accessKey);
            key("secretKey", secretKey);
            PlainAccount existing = files.snapshot().accounts().get(accessKey.trim());
            String white = f.get("whiteRemoteAddress");
            AddressPattern whitePattern = white != null ? AddressPattern.parse(white)
                : existing != null ? existing.whiteRemoteAddress() : AddressPattern.NONE;
            boolean admin = Boolean.parseBoolean(f.get("admin"));
            byte defaultTopic = nonEmpty(f.get("defaultTopicPerm")) ? Permission.parse(f.get("defaultTopicPerm"))
                : existing != null ? existing.defaultTopicPerm() : Permission.DENY;
            byte defaultGroup = nonEmpty(f.get("defaultGroupPerm")) ? Permission.parse(f.get("defaultGroupPerm"))
                : existing != null ? existing.defaultGroupPerm() : Permission.DENY;
            Map<String, Byte> topics = f.get("topicPerms") != null ? perms(f.get("topicPerms"), false)
                : existing != null ? existing.topicPerms() : Map.of();
            Map<String, Byte> groups = f.get("groupPerms") != null ? perms(f.get("groupPerms"), true)
                : existing != null ? existing.groupPerms() : Map.of();
            String secret = secretKey.trim();
            files.putAccount(new PlainAccount(accessKey.trim(), secret, whitePattern, admin, defaultTopic, defaultGroup,
                topics, groups, ""));
            log.info("ACL 1.0: account {} {} (admin={})", accessKey.trim(), existing == null ? "created" : "updated", admin);
            return RemotingCommand.response(ResponseCode.SUCCESS, null);
        } catch (IllegalArgumentException | AclConfigException | IOException e) {
            return RemotingCommand.response(UPDATE_AND_CREATE_ACL_CONFIG_FAILED, "The accessKey[" + accessKey
                + "] corresponding to accessConfig has been updated failed: " + e.getMessage());
        }
    }

    private RemotingCommand delete(Map<String, String> f) {
        String accessKey = f.get("accessKey");
        if (files == null) {
            return RemotingCommand.response(DELETE_ACL_CONFIG_FAILED, DISABLED);
        }
        try {
            if (accessKey != null && files.deleteAccount(accessKey.trim())) {
                log.info("ACL 1.0: account {} deleted", accessKey.trim());
                return RemotingCommand.response(ResponseCode.SUCCESS, null);
            }
            return RemotingCommand.response(DELETE_ACL_CONFIG_FAILED, "The accessKey[" + accessKey
                + "] corresponding to accessConfig has been deleted failed: no such account");
        } catch (IOException | AclConfigException e) {
            return RemotingCommand.response(DELETE_ACL_CONFIG_FAILED, "The accessKey[" + accessKey
                + "] corresponding to accessConfig has been deleted failed: " + e.getMessage());
        }
    }

    private RemotingCommand info() {
        if (files == null) {
            return RemotingCommand.response(ResponseCode.SYSTEM_ERROR, DISABLED);
        }
        PlainAclFiles.Snapshot snapshot = files.snapshot();
        Path defaultPath = files.defaultFile().toAbsolutePath().normalize();
        PlainAclFile defaultFile = snapshot.files().get(defaultPath);
        Map<String, String> versions = new LinkedHashMap<>();
        snapshot.files().forEach((path, file) -> versions.put(path.toString(), versionJson(file.dataVersion())));
        StringBuilder all = new StringBuilder("{");
        versions.forEach((path, version) -> {
            if (all.length() > 1) {
                all.append(',');
            }
            all.append(jsonString(path)).append(':').append(version);
        });
        all.append('}');
        RemotingCommand response = RemotingCommand.response(ResponseCode.SUCCESS, null);
        response.putExtField("version", versionJson(defaultFile == null ? PlainAclFile.DataVersion.NONE
            : defaultFile.dataVersion()));
        response.putExtField("allAclFileVersion", all.toString());
        response.putExtField("brokerName", brokerName);
        response.putExtField("brokerAddr", brokerAddr);
        response.putExtField("clusterName", clusterName);
        return response;
    }

    private RemotingCommand globalWhite(Map<String, String> f) {
        if (files == null) {
            return RemotingCommand.response(UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED, DISABLED);
        }
        String addrs = f.get("globalWhiteAddrs");
        String path = f.get("aclFileFullPath");
        try {
            if (addrs == null) {
                throw new IllegalArgumentException("globalWhiteAddrs is missing");
            }
            List<String> rules = new ArrayList<>();
            for (String rule : addrs.split(",")) {
                if (!rule.isBlank()) {
                    rules.add(rule.trim());
                }
            }
            files.setGlobalWhite(path == null || path.isBlank() ? null : Path.of(path), rules);
            log.info("ACL 1.0: global white addresses of {} set to {}", path == null || path.isBlank()
                ? files.defaultFile() : path, rules);
            return RemotingCommand.response(ResponseCode.SUCCESS, null);
        } catch (IllegalArgumentException | AclConfigException | IOException e) {
            return RemotingCommand.response(UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED, "updating the global white"
                + " addresses failed: " + e.getMessage());
        }
    }

    private static void key(String name, String value) {
        if (value == null || value.trim().length() < PlainAccount.MIN_KEY_LENGTH) {
            throw new IllegalArgumentException(name + " must have at least " + PlainAccount.MIN_KEY_LENGTH + " characters");
        }
    }

    private static boolean nonEmpty(String s) {
        return s != null && !s.isBlank();
    }

    /** {@code topicA=DENY,topicB=PUB|SUB} as mqadmin joins them. */
    private static Map<String, Byte> perms(String joined, boolean groups) {
        Map<String, Byte> out = new HashMap<>();
        for (String entry : Arrays.stream(joined.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList()) {
            String[] parts = entry.split("=", -1);
            if (parts.length != 2 || parts[0].isBlank()) {
                throw new IllegalArgumentException("'" + entry + "' is not name=PERM");
            }
            String name = parts[0].trim();
            if (groups && name.startsWith(PlainAclFile.RETRY_PREFIX)) {
                name = name.substring(PlainAclFile.RETRY_PREFIX.length());
            }
            out.put(name, Permission.parse(parts[1]));
        }
        return out;
    }

    /** RocketMQ's DataVersion JSON: {@code {"counter":2,"stateVersion":0,"timestamp":1700000000000}}. */
    private static String versionJson(PlainAclFile.DataVersion v) {
        return "{\"counter\":" + v.counter() + ",\"stateVersion\":0,\"timestamp\":" + v.timestamp() + "}";
    }

    private static String jsonString(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
