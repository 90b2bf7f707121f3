package io.basalt.tools;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.remoting.RPCHook;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import picocli.CommandLine.Option;

/**
 * The security options Basalt's tools share (a picocli mixin): TLS ({@code --tls}, or RocketMQ's
 * {@code -Dtls.enable=true}) and the ACL credentials requests are signed with: {@code --access-key} and
 * {@code --secret-key}, else {@code conf/tools.yml} of Basalt's directory ({@code accessKey}, {@code secretKey}), the
 * file RocketMQ's mqadmin reads, so that one file serves both tools.
 */
public final class ClientSecurityOptions {
    @Option(names = "--tls", description = "speak TLS to the broker (or -Dtls.enable=true, as RocketMQ's clients)")
    boolean tls;
    @Option(names = "--access-key", description = "ACL account to sign requests with (else conf/tools.yml's accessKey)")
    String accessKey;
    @Option(names = "--secret-key", description = "its secret key (else conf/tools.yml's secretKey)")
    String secretKey;

    /** Whether TLS is asked for, by the option or RocketMQ's system property. */
    public boolean tls() {
        return tls || Boolean.parseBoolean(System.getProperty("tls.enable", "false"));
    }

    /** The signing hook, or null when no credentials are given and {@code conf/tools.yml} has none. */
    public RPCHook rpcHook() throws IOException {
        String ak = accessKey;
        String sk = secretKey;
        if (ak == null || sk == null) {
            Path tools = Path.of(System.getProperty("rocketmq.home.dir", System.getProperty("basalt.home", ".")),
                "conf", "tools.yml");
            if (Files.isRegularFile(tools)) {
                try (InputStream in = Files.newInputStream(tools)) {
                    Object loaded = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
                    if (loaded instanceof Map<?, ?> map) {
                        ak = ak != null ? ak : stringOrNull(map.get("accessKey"));
                        sk = sk != null ? sk : stringOrNull(map.get("secretKey"));
                    }
                }
            }
        }
        return ak == null || sk == null || ak.isBlank() || sk.isBlank() ? null
            : new AclClientRPCHook(new SessionCredentials(ak, sk));
    }

    private static String stringOrNull(Object value) {
        return value == null ? null : value.toString();
    }
}
