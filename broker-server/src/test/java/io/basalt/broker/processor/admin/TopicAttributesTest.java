package io.basalt.broker.processor.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TopicAttributesTest {

    @Test
    void addsReplacesAndRemovesAsRocketMqsAttributeParser() {
        Map<String, String> current = Map.of("message.type", "NORMAL", "queue.type", "BatchCQ");
        assertEquals(Map.of("message.type", "FIFO", "cleanup.policy", "DELETE"),
            TopicAdminProcessor.TopicAttributes.alter(current, "+message.type=FIFO,-queue.type,+cleanup.policy=DELETE"));
        assertEquals(current, TopicAdminProcessor.TopicAttributes.alter(current, null));
        assertEquals(current, TopicAdminProcessor.TopicAttributes.alter(current, " "));
    }

    @Test
    void malformedChangesNameTheItem() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> TopicAdminProcessor.TopicAttributes.alter(Map.of(), "message.type=FIFO"));
        assertTrue(e.getMessage().contains("message.type=FIFO"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TopicAdminProcessor.TopicAttributes.alter(Map.of(), "+key"));
        assertThrows(IllegalArgumentException.class, () -> TopicAdminProcessor.TopicAttributes.alter(Map.of(), "+=v"));
    }

    @Test
    void systemTopicsAreRocketMqs() {
        assertTrue(TopicAdminProcessor.isSystemTopic("TBW102"));
        assertTrue(TopicAdminProcessor.isSystemTopic("SCHEDULE_TOPIC_XXXX"));
        assertTrue(TopicAdminProcessor.isSystemTopic("rmq_sys_anything"));
        assertEquals(false, TopicAdminProcessor.isSystemTopic("TopicA"));
    }
}
