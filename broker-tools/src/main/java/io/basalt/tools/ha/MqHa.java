package io.basalt.tools.ha;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;

import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.protocol.EpochEntry;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RemotingSerializable;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.body.EpochEntryCache;
import org.apache.rocketmq.remoting.protocol.body.HARuntimeInfo;
import org.apache.rocketmq.remoting.protocol.body.KVTable;

import io.basalt.tools.ClientSecurityOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mqha status|promote}: replication operations RocketMQ's mqadmin has no command for. {@code status}
 * prints a broker's replication fields (role, epoch, fenced, per-slave offsets and lag) from
 * GET_BROKER_RUNTIME_INFO, then the epoch history (GET_BROKER_EPOCH_CACHE) and each slave as {@code mqadmin
 * haStatus} sees it (GET_BROKER_HA_STATUS) with its lag in seconds; {@code promote} turns a slave into a master without a restart (Basalt's
 * request 10101), refused unless the slave follows {@code --expected-epoch}. Exit status: 0 on success,
 * 1 when the broker refused or could not be reached, 2 on bad arguments.
 */
@Command(name = "mqha", mixinStandardHelpOptions = true, version = "mqha (Basalt)",
    description = "Replication status and slave promotion for Basalt brokers.",
    subcommands = {MqHa.Status.class, MqHa.Promote.class})
public final class MqHa implements Callable<Integer> {
    /** Basalt's promote request; outside RocketMQ's request-code range. */
    static final int PROMOTE_TO_MASTER = 10101;
    private static final long TIMEOUT_MS = 15_000;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(System.out, args));
    }

    static int run(PrintStream out, String... args) {
        CommandLine cl = new CommandLine(new MqHa());
        cl.setOut(new PrintWriter(out, true));
        return cl.execute(args);
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 2;
    }

    /** A client to the broker with TLS and the ACL signature as {@code security} says. */
    static NettyRemotingClient client(ClientSecurityOptions security) throws java.io.IOException {
        NettyClientConfig config = new NettyClientConfig();
        config.setUseTLS(security.tls());
        NettyRemotingClient client = new NettyRemotingClient(config);
        org.apache.rocketmq.remoting.RPCHook hook = security.rpcHook();
        if (hook != null) {
            client.registerRPCHook(hook);
        }
        client.start();
        return client;
    }

    /** Sends one request to {@code broker} and prints the outcome; the exit status. */
    private static int call(PrintWriter out, String broker, RemotingCommand request, ResponsePrinter printer,
                            ClientSecurityOptions security) {
        return withClient(out, broker, security, client -> {
            RemotingCommand response = client.invokeSync(broker, request, TIMEOUT_MS);
            if (response.getCode() != 0) {
                out.println(broker + " refused: " + response.getRemark() + " (code " + response.getCode() + ")");
                return 1;
            }
            printer.print(out, response);
            return 0;
        });
    }

    /**
     * Runs {@code work} with a client to {@code broker} and returns its exit status; a client that cannot be
     * opened or a broker that cannot be reached is printed and exits 1. The client is always shut down.
     */
    private static int withClient(PrintWriter out, String broker, ClientSecurityOptions security, ClientWork work) {
        NettyRemotingClient client;
        try {
            client = client(security);
        } catch (java.io.IOException e) {
            out.println("cannot read the credentials: " + e.getMessage());
            return 1;
        }
        try {
            return work.run(client);
        } catch (Exception e) {
            out.println("cannot reach " + broker + ": " + e.getMessage());
            return 1;
        } finally {
            client.shutdown();
        }
    }

    private interface ClientWork {
        int run(NettyRemotingClient client) throws Exception;
    }

    private interface ResponsePrinter {
        void print(PrintWriter out, RemotingCommand response) throws Exception;
    }

    @Command(name = "status", mixinStandardHelpOptions = true,
        description = "Print a broker's replication state: role, epoch and epoch history, fenced, and each slave's "
            + "acknowledged offset, lag in bytes and seconds and whether it is in sync (mqadmin haStatus and "
            + "getBrokerEpoch in one view).")
    static final class Status implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = {"-b", "--broker"}, required = true, paramLabel = "ADDR", description = "broker host:port")
        String broker;

        @CommandLine.Mixin
        ClientSecurityOptions security;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            return withClient(out, broker, security, client -> {
                RemotingCommand info = client.invokeSync(broker,
                    RemotingCommand.createRequestCommand(RequestCode.GET_BROKER_RUNTIME_INFO, null), TIMEOUT_MS);
                if (info.getCode() != 0) {
                    out.println(broker + " refused: " + info.getRemark() + " (code " + info.getCode() + ")");
                    return 1;
                }
                Map<String, String> table = new TreeMap<>(KVTable.decode(info.getBody(), KVTable.class).getTable());
                table.forEach((key, value) -> {
                    if (key.startsWith("ha")) {
                        out.printf("%-24s %s%n", key, value);
                    }
                });
                RemotingCommand epochs = client.invokeSync(broker,
                    RemotingCommand.createRequestCommand(RequestCode.GET_BROKER_EPOCH_CACHE, null), TIMEOUT_MS);
                if (epochs.getCode() == 0) {
                    EpochEntryCache cache = RemotingSerializable.decode(epochs.getBody(), EpochEntryCache.class);
                    List<String> list = new ArrayList<>();
                    for (EpochEntry e : cache.getEpochList()) {
                        list.add(e.getEpoch() + "@" + e.getStartOffset());
                    }
                    out.printf("%-24s %s%n", "epochs", list.isEmpty() ? "none" : String.join(", ", list));
                    out.printf("%-24s %d%n", "commitLogMaxOffset", cache.getMaxOffset());
                }
                RemotingCommand status = client.invokeSync(broker,
                    RemotingCommand.createRequestCommand(RequestCode.GET_BROKER_HA_STATUS, null), TIMEOUT_MS);
                if (status.getCode() == 0) {
                    printHaStatus(out, RemotingSerializable.decode(status.getBody(), HARuntimeInfo.class), table);
                }
                return 0;
            });
        }

        /** The slaves as {@code mqadmin haStatus} lists them, with the lag in seconds from the runtime info. */
        private static void printHaStatus(PrintWriter out, HARuntimeInfo info, Map<String, String> runtime) {
            if (!info.isMaster()) {
                HARuntimeInfo.HAClientRuntimeInfo c = info.getHaClientRuntimeInfo();
                out.printf("%-24s %s%n", "masterHaAddress", c.getMasterAddr());
                return;
            }
            out.printf("%-24s %d%n", "inSyncSlaves", info.getInSyncSlaveNums());
            for (HARuntimeInfo.HAConnectionRuntimeInfo c : info.getHaConnectionInfo()) {
                String lagMs = "?";
                for (Map.Entry<String, String> e : runtime.entrySet()) {
                    if (e.getKey().endsWith("Address") && e.getValue().endsWith(c.getAddr())) {
                        lagMs = runtime.getOrDefault(e.getKey().replace("Address", "LagMs"), "?");
                    }
                }
                String lagSeconds = lagMs.equals("?") ? "?" : String.format("%.1f", Long.parseLong(lagMs) / 1000.0);
                out.printf("slave %-18s ackOffset=%d lagBytes=%d lagSeconds=%s inSync=%s%n", c.getAddr(),
                    c.getSlaveAckOffset(), c.getDiff(), lagSeconds, c.isInSync() ? "yes" : "no");
            }
        }
    }

    @Command(name = "promote", mixinStandardHelpOptions = true,
        description = "Promote a slave to master without a restart, under the next epoch. The previous master, if "
            + "still reachable, is told to step down; with NameServers the promotion is refused when another master "
            + "already serves the broker name.")
    static final class Promote implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = {"-b", "--broker"}, required = true, paramLabel = "ADDR", description = "the slave's host:port")
        String broker;

        @Option(names = "--role", defaultValue = "ASYNC_MASTER", paramLabel = "ROLE",
            description = "ASYNC_MASTER or SYNC_MASTER (default: ${DEFAULT-VALUE})")
        String role;

        @Option(names = {"-e", "--expected-epoch"}, required = true, paramLabel = "EPOCH",
            description = "the epoch the slave follows (haEpoch in `mqha status`); a mismatch is refused")
        long expectedEpoch;

        @CommandLine.Mixin
        ClientSecurityOptions security;

        @Override
        public Integer call() {
            RemotingCommand request = RemotingCommand.createRequestCommand(PROMOTE_TO_MASTER, null);
            request.addExtField("role", role);
            request.addExtField("expectedEpoch", Long.toString(expectedEpoch));
            return MqHa.call(spec.commandLine().getOut(), broker, request,
                (o, response) -> o.println(broker + " promoted to " + role + ", " + response.getRemark()), security);
        }
    }
}
