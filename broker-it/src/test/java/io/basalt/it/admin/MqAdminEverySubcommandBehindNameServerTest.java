package io.basalt.it.admin;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerHandle;
import io.basalt.it.RocketMqNameServer;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;

/** {@link MqAdminSubcommands} with the Basalt broker registered at the real RocketMQ 5.2.0 NameServer. */
@LeakCheckExtension.AllowThreads(value = {RocketMqNameServer.LEFT_RUNNING, "RemotingExecutorThread_",
    "NettyClientScan_thread_"},
    because = "the official 5.2.0 NettyRemotingServer.shutdown(), which NamesrvController.shutdown() calls, leaves its"
        + " scheduler thread running; the NameServer, shared by the class's tests, starts its request threads as"
        + " requests arrive and stops them only when it stops; the official push consumer the class's tests share"
        + " keeps its remoting client, whose response-scan pool starts a thread per scan until it reaches its core size")
class MqAdminEverySubcommandBehindNameServerTest extends MqAdminSubcommands {
    @TempDir
    static Path dir;

    @Override
    String startBroker() throws Exception {
        RocketMqNameServer nameServer = RocketMqNameServer.start(dir);
        afterBroker.add(nameServer);
        broker = BrokerHandle.start(dir.resolve("broker"), Map.of("namesrvAddr", nameServer.address()));
        return nameServer.address();
    }
}
