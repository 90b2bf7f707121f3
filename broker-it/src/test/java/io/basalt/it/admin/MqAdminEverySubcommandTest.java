package io.basalt.it.admin;

import io.basalt.common.test.LeakCheckExtension;
import io.basalt.it.BrokerHandle;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;

/** {@link MqAdminSubcommands} with the Basalt broker as its own NameServer ({@code -n} = the broker's address). */
@LeakCheckExtension.AllowThreads(value = "NettyClientScan_thread_",
    because = "the official push consumer the class's tests share keeps its remoting client for the whole class; the client's"
        + " name-server scan pool starts a thread per scan until it reaches its core size, whichever test runs then")
class MqAdminEverySubcommandTest extends MqAdminSubcommands {
    @TempDir
    static Path dir;

    @Override
    String startBroker() throws Exception {
        broker = BrokerHandle.start(dir, Map.of());
        return broker.address();
    }
}
