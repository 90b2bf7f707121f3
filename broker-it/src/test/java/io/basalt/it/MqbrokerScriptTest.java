package io.basalt.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.common.test.LeakCheckExtension;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The operator's path: bin/mqbroker start, send, bin/mqbroker stop (graceful), start again, read everything. */
@LeakCheckExtension.AllowThreads(value = RocketMqNameServer.LEFT_RUNNING,
    because = "the official 5.2.0 NettyRemotingServer.shutdown(), which NamesrvController.shutdown() calls, leaves its"
        + " scheduler thread running (the quick-start test runs against the official NameServer)")
class MqbrokerScriptTest {
    @TempDir
    Path dir;
    Process running;

    @AfterEach
    void kill() throws Exception {
        if (running != null && running.isAlive()) {
            running.descendants().forEach(ProcessHandle::destroyForcibly);
            running.destroyForcibly();
            running.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private Process mqbroker(Path conf, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of(BrokerProcess.BASALT_HOME.resolve("bin/mqbroker").toString()));
        cmd.addAll(List.of(args));
        // Run from the configuration's directory and name it relatively, as an operator would: the
        // script must read the caller's file, not one relative to the Basalt directory.
        cmd.addAll(List.of("-c", conf.getFileName().toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(conf.toAbsolutePath().getParent().toFile())
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("mqbroker.out").toFile()));
        pb.environment().put("JAVA_OPT", "-Xms128m -Xmx256m -XX:MaxDirectMemorySize=256m -XX:+UseSerialGC");
        pb.environment().put("BASALT_LOG_DIR", dir.resolve("logs").toString());
        return pb.start();
    }

    private void startAndWait(BrokerProcess b) throws Exception {
        running = mqbroker(b.confFile(), "start");
        Process p = running;
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() -> {
            if (!p.isAlive()) {
                throw new IllegalStateException("mqbroker start exited " + p.exitValue() + ": "
                    + Files.readString(dir.resolve("mqbroker.out")));
            }
            return BrokerProcess.answers(b.port());
        });
    }

    private void stop(BrokerProcess b) throws Exception {
        Process stop = mqbroker(b.confFile(), "stop");
        assertTrue(stop.waitFor(90, TimeUnit.SECONDS), "stop returns");
        assertEquals(0, stop.exitValue(), Files.readString(dir.resolve("mqbroker.out")));
        assertTrue(running.waitFor(30, TimeUnit.SECONDS), "broker process gone after stop");
        assertFalse(Files.exists(b.storeDir().resolve("abort")), "abort marker removed by the clean shutdown");
        assertFalse(Files.exists(b.storeDir().resolve("broker.pid")), "pid file removed");
    }

    /**
     * RocketMQ's quick start against the official 5.2.0 NameServer: {@code sh bin/mqbroker -n NAMESRV -c FILE} (no
     * command, run by sh) registers the broker there, then {@code sh bin/mqshutdown broker} stops it.
     */
    @Test
    void rocketMqsQuickStartCommandsRunAndStopTheBroker() throws Exception {
        try (RocketMqNameServer nameServer = RocketMqNameServer.start(dir.resolve("namesrv"))) {
            quickStartAndShutdown(nameServer.address());
        }
    }

    private void quickStartAndShutdown(String nameServer) throws Exception {
        BrokerProcess b = BrokerProcess.create(dir.resolve("q"), Map.of());
        Path conf = b.confFile().toAbsolutePath();
        ProcessBuilder start = new ProcessBuilder("sh", BrokerProcess.BASALT_HOME.resolve("bin/mqbroker").toString(),
            "-n", nameServer, "-c", conf.toString())
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("mqbroker.out").toFile()));
        start.environment().put("JAVA_OPT", "-Xms128m -Xmx256m -XX:MaxDirectMemorySize=256m -XX:+UseSerialGC");
        start.environment().put("BASALT_LOG_DIR", dir.resolve("logs").toString());
        running = start.start();
        Process p = running;
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() -> {
            if (!p.isAlive()) {
                throw new IllegalStateException("sh bin/mqbroker exited " + p.exitValue() + ": "
                    + Files.readString(dir.resolve("mqbroker.out")));
            }
            return BrokerProcess.answers(b.port());
        });
        DefaultMQAdminExt admin = new DefaultMQAdminExt();
        admin.setNamesrvAddr(nameServer);
        admin.setInstanceName("quick-start-" + System.nanoTime());
        admin.start();
        try {
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertTrue(admin.examineBrokerClusterInfo()
                .getBrokerAddrTable().values().stream().anyMatch(d -> d.getBrokerAddrs().containsValue(b.address())),
                "the broker registered with the NameServer named by -n"));
        } finally {
            admin.shutdown();
        }

        Process shutdown = new ProcessBuilder("sh", BrokerProcess.BASALT_HOME.resolve("bin/mqshutdown").toString(), "broker")
            .redirectErrorStream(true).start();
        String said = new String(shutdown.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(shutdown.waitFor(90, TimeUnit.SECONDS), "mqshutdown returns");
        assertEquals(0, shutdown.exitValue(), said);
        assertTrue(said.contains("Send shutdown request to mqbroker(") && said.contains(Long.toString(p.pid())), said);
        assertFalse(p.isAlive(), "mqshutdown waits until the broker is gone: " + said);
        assertFalse(Files.exists(b.storeDir().resolve("abort")), "a clean shutdown");

        Process again = new ProcessBuilder("sh", BrokerProcess.BASALT_HOME.resolve("bin/mqshutdown").toString(), "broker")
            .redirectErrorStream(true).start();
        String nothing = new String(again.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(again.waitFor(30, TimeUnit.SECONDS));
        assertEquals(1, again.exitValue(), nothing);
        assertTrue(nothing.contains("No mqbroker running."), nothing);
    }

    @Test
    void startSendStopStartReadEverythingBack() throws Exception {
        BrokerProcess b = BrokerProcess.create(dir.resolve("b"), Map.of());
        startAndWait(b);
        assertTrue(Files.exists(b.storeDir().resolve("broker.pid")));
        assertTrue(Files.exists(dir.resolve("logs/broker.log")), "logs go to BASALT_LOG_DIR");
        DefaultMQProducer producer = Clients.producer(b, "pg-script");
        try {
            for (int i = 0; i < 30; i++) {
                Message m = new Message("ScriptTopic", "TagA", "key-" + i, ("body-" + i).getBytes(StandardCharsets.UTF_8));
                assertEquals(SendStatus.SEND_OK, producer.send(m).getSendStatus());
            }
        } finally {
            producer.shutdown();
        }
        stop(b);
        assertTrue(Files.readString(b.storeDir().resolve("config/topics.json")).contains("ScriptTopic"));

        startAndWait(b);
        DefaultLitePullConsumer c = Clients.litePull(b, "cg-script", "ScriptTopic", "*");
        List<MessageExt> read;
        try {
            read = Clients.pollAtLeast(c, 30, 60_000);
        } finally {
            c.shutdown();
        }
        assertEquals(30, read.size());
        assertEquals(30, read.stream().map(MessageExt::getKeys).collect(Collectors.toSet()).size());
        for (MessageExt m : read) {
            assertEquals("body-" + m.getKeys().substring(4), new String(m.getBody(), StandardCharsets.UTF_8));
        }
        stop(b);
    }
}
