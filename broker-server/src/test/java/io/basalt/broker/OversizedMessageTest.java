package io.basalt.broker;

import io.basalt.broker.processor.SendRequests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.broker.config.BrokerConfiguration;
import io.basalt.remoting.netty.NettyClientConfig;
import io.basalt.remoting.netty.NettyRemotingClient;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;
import io.basalt.store.commitlog.RecordFormat;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A RocketMQ broker.conf may pair small CommitLog files with the default 4 MiB maxMessageSize. The
 * broker starts with one warning naming the effective limit, and a send the files cannot hold gets
 * MESSAGE_ILLEGAL, whatever maxMessageSize says.
 */
class OversizedMessageTest {

    private static final int FILE_SIZE = 64 * 1024;

    @TempDir
    Path dir;

    private BrokerController broker;
    private NettyRemotingClient client;

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        if (broker != null) {
            broker.shutdown();
        }
    }

    @Test
    void maxMessageSizeAboveTheFileSizeStartsWithOneWarningAndTheFileBoundsASend() throws Exception {
        BrokerConfiguration config = BrokerConfiguration.of(Map.of("listenPort", "0", "haListenPort", "0",
            "metricsPort", "0", "bindAddress", "127.0.0.1", "brokerIP1", "127.0.0.1", "storePathRootDir", dir.toString(),
            "mappedFileSizeCommitLog", Integer.toString(FILE_SIZE), "warmMapedFileEnable", "false"));
        List<String> warnings = config.warnings();
        assertEquals(1, warnings.size(), warnings.toString());
        int largestRecord = FILE_SIZE - RecordFormat.END_FILE_MIN_BLANK_LENGTH;
        assertTrue(warnings.get(0).contains("maxMessageSize=4194304 is not smaller than mappedFileSizeCommitLog=65536"),
            warnings.get(0));
        assertTrue(warnings.get(0).contains("the effective limit is " + largestRecord + " bytes per record"), warnings.get(0));

        broker = BrokerController.create(config);
        broker.start();
        client = new NettyRemotingClient(NettyClientConfig.defaults());
        String address = "127.0.0.1:" + broker.listenPort();

        assertEquals(ResponseCode.SUCCESS, client.invokeSync(address, send(1024), 5000).code());
        // under maxMessageSize and under the file size, but no record that large fits in one file
        RemotingCommand overFile = client.invokeSync(address, send(FILE_SIZE - 16), 5000);
        assertEquals(ResponseCode.MESSAGE_ILLEGAL, overFile.code(), overFile.remark());
        RemotingCommand overTwoFiles = client.invokeSync(address, send(2 * FILE_SIZE), 5000);
        assertEquals(ResponseCode.MESSAGE_ILLEGAL, overTwoFiles.code(), overTwoFiles.remark());
        assertEquals(ResponseCode.SUCCESS, client.invokeSync(address, send(FILE_SIZE / 2), 5000).code(),
            "the broker still takes what fits");
    }

    private static RemotingCommand send(int bodySize) {
        return SendRequests.sendV2("T", "", new byte[bodySize]);
    }
}
