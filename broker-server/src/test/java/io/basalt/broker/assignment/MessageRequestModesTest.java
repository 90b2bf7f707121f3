package io.basalt.broker.assignment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import io.basalt.broker.protocol.MessageRequestModeBody;
import org.apache.rocketmq.remoting.protocol.RemotingSerializable;
import org.apache.rocketmq.remoting.protocol.body.MessageRequestModeSerializeWrapper;
import org.apache.rocketmq.remoting.protocol.body.SetMessageRequestModeRequestBody;
import org.apache.rocketmq.common.message.MessageRequestMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code config/messageRequestMode.json} in RocketMQ's format, both ways, and a slave's replacement of it. */
class MessageRequestModesTest {
    @TempDir
    Path dir;

    private static final MessageRequestModeBody POP_T = new MessageRequestModeBody("T", "cg", "POP", 2);

    @Test
    void aSetModeIsWrittenAsRocketMqWritesItAndReadBackAfterARestart() throws Exception {
        MessageRequestModes modes = MessageRequestModes.open(dir);
        assertEquals(Optional.empty(), modes.get("T", "cg"));
        modes.set(POP_T);
        assertEquals(Optional.of(POP_T), modes.get("T", "cg"));

        MessageRequestModeSerializeWrapper official = RemotingSerializable.decode(
            Files.readAllBytes(dir.resolve("messageRequestMode.json")), MessageRequestModeSerializeWrapper.class);
        SetMessageRequestModeRequestBody entry = official.getMessageRequestModeMap().get("T").get("cg");
        assertEquals(MessageRequestMode.POP, entry.getMode());
        assertEquals(2, entry.getPopShareQueueNum());
        assertEquals("T", entry.getTopic());
        assertEquals("cg", entry.getConsumerGroup());

        assertEquals(Optional.of(POP_T), MessageRequestModes.open(dir).get("T", "cg"), "after a restart");
    }

    @Test
    void aFileRocketMqWroteIsRead() throws Exception {
        MessageRequestModeSerializeWrapper wrapper = new MessageRequestModeSerializeWrapper();
        SetMessageRequestModeRequestBody body = new SetMessageRequestModeRequestBody();
        body.setTopic("T");
        body.setConsumerGroup("cg");
        body.setMode(MessageRequestMode.POP);
        body.setPopShareQueueNum(-1);
        wrapper.getMessageRequestModeMap().computeIfAbsent("T", t -> new java.util.concurrent.ConcurrentHashMap<>())
            .put("cg", body);
        Files.writeString(dir.resolve("messageRequestMode.json"), wrapper.toJson(true));
        assertEquals(Optional.of(new MessageRequestModeBody("T", "cg", "POP", -1)),
            MessageRequestModes.open(dir).get("T", "cg"));
    }

    @Test
    void anEmptyTableIsRocketMqsEmptyManager() throws Exception {
        assertEquals("{\"messageRequestModeMap\":{}}",
            new String(MessageRequestModes.open(dir).encode(), StandardCharsets.UTF_8));
    }

    @Test
    void theMastersTableReplacesTheSlavesInMemoryAndOnDisk() throws Exception {
        MessageRequestModes slave = MessageRequestModes.open(dir);
        slave.set(new MessageRequestModeBody("Old", "cg", "POP", 0));
        MessageRequestModes master = MessageRequestModes.inMemory();
        master.set(POP_T);

        slave.replaceAll(master.encode());
        assertEquals(Optional.of(POP_T), slave.get("T", "cg"));
        assertEquals(Optional.empty(), slave.get("Old", "cg"), "what the master lacks is gone (RocketMQ clears)");
        assertEquals(Optional.of(POP_T), MessageRequestModes.open(dir).get("T", "cg"));
        assertEquals(Optional.empty(), MessageRequestModes.open(dir).get("Old", "cg"));
    }

    @Test
    void aBadMasterTableChangesNothing() throws Exception {
        MessageRequestModes slave = MessageRequestModes.open(dir);
        slave.set(POP_T);
        assertThrows(java.io.IOException.class, () -> slave.replaceAll("{\"other\":1}".getBytes(StandardCharsets.UTF_8)));
        assertThrows(java.io.IOException.class, () -> slave.replaceAll(
            "{\"messageRequestModeMap\":{\"T\":{\"cg\":{\"mode\":\"PUSH\",\"topic\":\"T\",\"consumerGroup\":\"cg\"}}}}"
                .getBytes(StandardCharsets.UTF_8)));
        assertEquals(Optional.of(POP_T), slave.get("T", "cg"));
        assertEquals(Optional.of(POP_T), MessageRequestModes.open(dir).get("T", "cg"));
    }

    @Test
    void aFileWithAnUnknownModeStopsTheStartNamingIt() throws Exception {
        Files.writeString(dir.resolve("messageRequestMode.json"),
            "{\"messageRequestModeMap\":{\"T\":{\"cg\":{\"mode\":\"PUSH\",\"topic\":\"T\",\"consumerGroup\":\"cg\"}}}}");
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> MessageRequestModes.open(dir));
        assertTrue(e.getMessage().contains("PUSH"), e.getMessage());
    }
}
