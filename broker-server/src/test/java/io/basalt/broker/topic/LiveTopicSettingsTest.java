package io.basalt.broker.topic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.broker.processor.SlaveReadPolicy;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The settings UPDATE_BROKER_CONFIG changes while the broker runs take effect on the next request. */
class LiveTopicSettingsTest {
    @TempDir
    Path dir;

    @Test
    void autoCreateTopicEnableTurnedOnCreatesTbw102AndSendsCreateTopicsAgain() throws Exception {
        TopicConfigManager topics = TopicConfigManager.open(dir.resolve("off"), false, 4);
        assertNull(topics.get(TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC));

        assertTrue(topics.setAutoCreateTopicEnable(true, 4), "TBW102 created");
        TopicConfig template = topics.get(TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC);
        assertEquals(Perm.READ | Perm.WRITE | Perm.INHERIT, template.perm());
        assertTrue(topics.createTopicInSendMessageMethod("Fresh", "TBW102", "10.0.0.1:5000", 4, 0).isPresent());

        assertFalse(topics.setAutoCreateTopicEnable(false, 4));
        assertTrue(topics.createTopicInSendMessageMethod("Another", "TBW102", "10.0.0.1:5000", 4, 0).isEmpty());
    }

    @Test
    void autoCreateSubscriptionGroupFollowsItsLiveValue() throws Exception {
        SubscriptionGroupManager groups = SubscriptionGroupManager.open(dir, true);
        assertTrue(groups.findOrAutoCreate("cg-on").isPresent());

        groups.setAutoCreateSubscriptionGroup(false);

        assertTrue(groups.findOrAutoCreate("cg-off").isEmpty());
        assertTrue(groups.findOrAutoCreate("cg-on").isPresent(), "an existing group stays");
    }

    @Test
    void slaveReadEnableFollowsItsLiveValue() {
        SlaveReadPolicy slave = new SlaveReadPolicy(false, false, () -> true, () -> true, id -> false);
        assertTrue(slave.rejectsPulls());

        slave.setSlaveReadEnable(true);

        assertFalse(slave.rejectsPulls());
    }
}
