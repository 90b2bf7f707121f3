package io.basalt.broker.subscription;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.basalt.broker.JsonConfigFile;
import io.basalt.broker.subscription.SubscriptionGroupConfig.SimpleSubscriptionData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SubscriptionGroupManagerTest {
    /** What RocketMQ 5.2.0's fastjson writes (pretty, tab-indented), with a forbidden topic and a subscription set. */
    private static final String ROCKETMQ_FILE = """
        {
        \t"dataVersion":{
        \t\t"counter":7,
        \t\t"stateVersion":0,
        \t\t"timestamp":1700000000000
        \t},
        \t"forbiddenTable":{
        \t\t"orders_cg":{
        \t\t\t"Orders":1
        \t\t}
        \t},
        \t"subscriptionGroupTable":{
        \t\t"orders_cg":{
        \t\t\t"attributes":{},
        \t\t\t"brokerId":0,
        \t\t\t"consumeBroadcastEnable":false,
        \t\t\t"consumeEnable":false,
        \t\t\t"consumeFromMinEnable":true,
        \t\t\t"consumeMessageOrderly":true,
        \t\t\t"consumeTimeoutMinute":30,
        \t\t\t"groupName":"orders_cg",
        \t\t\t"groupRetryPolicy":{
        \t\t\t\t"exponentialRetryPolicy":{"initial":1000,"max":60000,"multiplier":2},
        \t\t\t\t"type":"EXPONENTIAL"
        \t\t\t},
        \t\t\t"groupSysFlag":0,
        \t\t\t"notifyConsumerIdsChangedEnable":false,
        \t\t\t"retryMaxTimes":5,
        \t\t\t"retryQueueNums":2,
        \t\t\t"subscriptionDataSet":[{"expression":"TagA","expressionType":"TAG","topic":"Orders","version":0}],
        \t\t\t"whichBrokerWhenConsumeSlowly":1
        \t\t},
        \t\t"TOOLS_CONSUMER":{
        \t\t\t"attributes":{},
        \t\t\t"brokerId":0,
        \t\t\t"consumeBroadcastEnable":true,
        \t\t\t"consumeEnable":true,
        \t\t\t"consumeFromMinEnable":true,
        \t\t\t"consumeMessageOrderly":false,
        \t\t\t"consumeTimeoutMinute":15,
        \t\t\t"groupName":"TOOLS_CONSUMER",
        \t\t\t"groupRetryPolicy":{
        \t\t\t\t"type":"CUSTOMIZED"
        \t\t\t},
        \t\t\t"groupSysFlag":0,
        \t\t\t"notifyConsumerIdsChangedEnable":true,
        \t\t\t"retryMaxTimes":16,
        \t\t\t"retryQueueNums":1,
        \t\t\t"whichBrokerWhenConsumeSlowly":1
        \t\t}
        \t}
        }""";

    @TempDir
    Path dir;

    static SubscriptionGroupConfig disabled(String group, int retryQueueNums) {
        return SubscriptionGroupConfig.defaults(group).withConsumeEnable(false).withRetryQueueNums(retryQueueNums)
            .withRetryMaxTimes(3).withSubscriptionDataSet(Set.of(new SimpleSubscriptionData("Orders", "TAG", "*", 0)));
    }

    @Test
    void rocketMqsSystemGroupsExistFromTheStartWithoutWritingTheFile() throws IOException {
        SubscriptionGroupManager m = SubscriptionGroupManager.open(dir, false);
        for (String group : SubscriptionGroupManager.SYSTEM_GROUPS) {
            assertEquals(SubscriptionGroupConfig.defaults(group), m.get(group).orElseThrow());
        }
        assertFalse(Files.exists(dir.resolve("subscriptionGroup.json")));
        assertEquals(0, m.dataVersion().counter());
    }

    @Test
    void groupsPersistInRocketMqsLayoutWithABackupAndReload() throws IOException {
        SubscriptionGroupManager m = SubscriptionGroupManager.open(dir, true);
        m.createOrUpdate(disabled("orders_cg", 2));
        m.createOrUpdate(SubscriptionGroupConfig.defaults("billing_cg"));

        JsonNode file = JsonConfigFile.MAPPER.readTree(dir.resolve("subscriptionGroup.json").toFile());
        assertTrue(file.path("forbiddenTable").isObject(), file.toString());
        assertEquals(2, file.path("dataVersion").path("counter").asLong());
        JsonNode orders = file.path("subscriptionGroupTable").path("orders_cg");
        assertFalse(orders.path("consumeEnable").asBoolean(true));
        assertEquals("CUSTOMIZED", orders.path("groupRetryPolicy").path("type").asText());
        assertEquals("Orders", orders.path("subscriptionDataSet").path(0).path("topic").asText());
        assertTrue(Files.exists(dir.resolve("subscriptionGroup.json.bak")), "the first version is the backup of the second");

        SubscriptionGroupManager reopened = SubscriptionGroupManager.open(dir, true);
        assertEquals(disabled("orders_cg", 2), reopened.get("orders_cg").orElseThrow());
        assertEquals(SubscriptionGroupConfig.defaults("billing_cg"), reopened.get("billing_cg").orElseThrow());
        assertEquals(m.dataVersion(), reopened.dataVersion());
    }

    @Test
    void readsASubscriptionGroupJsonWrittenByRocketMqAndWritesItsForbiddenTableBack() throws IOException {
        Files.writeString(dir.resolve("subscriptionGroup.json"), ROCKETMQ_FILE);
        SubscriptionGroupManager m = SubscriptionGroupManager.open(dir, true);

        SubscriptionGroupConfig orders = m.get("orders_cg").orElseThrow();
        assertFalse(orders.consumeEnable());
        assertFalse(orders.consumeBroadcastEnable());
        assertTrue(orders.consumeMessageOrderly());
        assertFalse(orders.notifyConsumerIdsChangedEnable());
        assertEquals(2, orders.retryQueueNums());
        assertEquals(5, orders.retryMaxTimes());
        assertEquals(30, orders.consumeTimeoutMinute());
        assertEquals("EXPONENTIAL", orders.groupRetryPolicy().get("type"));
        assertEquals(Set.of(new SimpleSubscriptionData("Orders", "TAG", "TagA", 0)), orders.subscriptionDataSet());
        assertEquals(7, m.dataVersion().counter());
        assertEquals(1_700_000_000_000L, m.dataVersion().timestamp());

        m.createOrUpdate(SubscriptionGroupConfig.defaults("billing_cg"));
        JsonNode file = JsonConfigFile.MAPPER.readTree(dir.resolve("subscriptionGroup.json").toFile());
        assertEquals(1, file.path("forbiddenTable").path("orders_cg").path("Orders").asInt());
        assertEquals(8, file.path("dataVersion").path("counter").asLong(), "the version goes on from RocketMQ's");
        assertEquals(60000, file.path("subscriptionGroupTable").path("orders_cg").path("groupRetryPolicy")
            .path("exponentialRetryPolicy").path("max").asInt(), "the retry policy is kept as written");
        assertEquals(orders, SubscriptionGroupManager.open(dir, true).get("orders_cg").orElseThrow());
    }

    @Test
    void anUnknownGroupIsCreatedWithRocketMqsDefaultsAndPersisted() throws IOException {
        SubscriptionGroupManager m = SubscriptionGroupManager.open(dir, true);
        SubscriptionGroupConfig created = m.findOrAutoCreate("cg").orElseThrow();
        assertEquals(SubscriptionGroupConfig.defaults("cg"), created);
        assertTrue(created.consumeEnable() && created.consumeFromMinEnable() && created.consumeBroadcastEnable());
        assertEquals(1, created.retryQueueNums());
        assertEquals(16, created.retryMaxTimes());
        assertEquals(15, created.consumeTimeoutMinute());
        assertEquals(1, m.dataVersion().counter());
        assertEquals(created, m.findOrAutoCreate("cg").orElseThrow());
        assertEquals(1, m.dataVersion().counter(), "finding an existing group is no change");
        assertEquals(created, SubscriptionGroupManager.open(dir, false).get("cg").orElseThrow());
    }

    @Test
    void withoutAutoCreationOnlyRocketMqsSystemGroupsAreCreated() throws IOException {
        SubscriptionGroupManager m = SubscriptionGroupManager.open(dir, false);
        assertTrue(m.findOrAutoCreate("cg").isEmpty());
        assertTrue(m.get("cg").isEmpty());
        assertTrue(m.findOrAutoCreate("CID_RMQ_SYS_PROXY").isPresent());
    }

    @Test
    void invalidNamesAreNeverCreated() throws IOException {
        SubscriptionGroupManager m = SubscriptionGroupManager.open(dir, true);
        assertTrue(m.findOrAutoCreate("bad group").isEmpty());
        assertTrue(m.findOrAutoCreate("g".repeat(GroupValidator.GROUP_MAX_LENGTH + 1)).isEmpty());
        assertTrue(m.findOrAutoCreate(null).isEmpty());
        assertEquals(0, m.dataVersion().counter());
    }

    @Test
    void forbiddingAReadSetsOnlyTheReadBitPersistsItAndAllowingItAgainGivesTheOtherBitsBack() throws IOException {
        Files.writeString(dir.resolve("subscriptionGroup.json"), ROCKETMQ_FILE);
        SubscriptionGroupManager m = SubscriptionGroupManager.open(dir, true);
        assertFalse(m.isReadForbidden("orders_cg", "Orders"), "RocketMQ's file sets another bit (1), not read (4)");

        m.setReadForbidden("orders_cg", "Orders", true);
        m.setReadForbidden("billing_cg", "Bills", true);
        assertEquals(9, m.dataVersion().counter(), "each change bumps the version");
        m.setReadForbidden("billing_cg", "Bills", true);
        assertEquals(9, m.dataVersion().counter(), "forbidding what is forbidden is no change");

        SubscriptionGroupManager reopened = SubscriptionGroupManager.open(dir, true);
        assertTrue(reopened.isReadForbidden("orders_cg", "Orders"));
        assertTrue(reopened.isReadForbidden("billing_cg", "Bills"));
        assertFalse(reopened.isReadForbidden("billing_cg", "Orders"));
        JsonNode file = JsonConfigFile.MAPPER.readTree(dir.resolve("subscriptionGroup.json").toFile());
        assertEquals(1 | 4, file.path("forbiddenTable").path("orders_cg").path("Orders").asInt());

        reopened.setReadForbidden("orders_cg", "Orders", false);
        reopened.setReadForbidden("billing_cg", "Bills", false);
        file = JsonConfigFile.MAPPER.readTree(dir.resolve("subscriptionGroup.json").toFile());
        assertEquals(1, file.path("forbiddenTable").path("orders_cg").path("Orders").asInt());
        assertTrue(file.path("forbiddenTable").path("billing_cg").isMissingNode(), "a pair left with no bit goes");
        assertFalse(SubscriptionGroupManager.open(dir, true).isReadForbidden("orders_cg", "Orders"));
    }

    @Test
    void deleteRemovesTheGroupAndItsForbiddenTopics() throws IOException {
        Files.writeString(dir.resolve("subscriptionGroup.json"), ROCKETMQ_FILE);
        SubscriptionGroupManager m = SubscriptionGroupManager.open(dir, true);
        assertTrue(m.delete("orders_cg"));
        assertFalse(m.delete("orders_cg"));
        SubscriptionGroupManager reopened = SubscriptionGroupManager.open(dir, false);
        assertTrue(reopened.get("orders_cg").isEmpty());
        JsonNode file = JsonConfigFile.MAPPER.readTree(dir.resolve("subscriptionGroup.json").toFile());
        assertTrue(file.path("forbiddenTable").path("orders_cg").isMissingNode(), file.toString());
    }
}
