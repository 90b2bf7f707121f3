package io.basalt.broker.processor.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.basalt.broker.offset.ConsumerOffsetManager;
import io.basalt.broker.subscription.SubscriptionGroupManager;
import io.basalt.remoting.processor.RequestContext;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;
import io.basalt.remoting.protocol.ResponseCode;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.apache.rocketmq.remoting.protocol.RemotingSerializable;
import org.apache.rocketmq.remoting.protocol.body.SubscriptionGroupWrapper;
import org.apache.rocketmq.remoting.protocol.subscription.GroupForbidden;
import org.apache.rocketmq.remoting.protocol.subscription.SubscriptionGroupConfig;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The subscription-group admin requests as DefaultMQAdminExt 5.2.0 sends them, answers read with its classes. */
class SubscriptionGroupAdminProcessorTest {
    private static final RequestContext CONTEXT = new RequestContext(null, new InetSocketAddress("127.0.0.1", 50000),
        new InetSocketAddress("127.0.0.1", 10911), 0);

    @TempDir
    Path dir;
    private SubscriptionGroupManager groups;
    private ConsumerOffsetManager offsets;
    private SubscriptionGroupAdminProcessor processor;

    @BeforeEach
    void open() throws Exception {
        groups = SubscriptionGroupManager.open(dir, true);
        offsets = ConsumerOffsetManager.open(dir);
        processor = new SubscriptionGroupAdminProcessor(groups, offsets);
    }

    private RemotingCommand call(int code, Map<String, String> fields, byte[] body) throws Exception {
        RemotingCommand request = RemotingCommand.request(code);
        fields.forEach(request::putExtField);
        request.setBody(body);
        return processor.processRequest(CONTEXT, request).get();
    }

    private RemotingCommand update(SubscriptionGroupConfig config) throws Exception {
        return call(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, Map.of(), RemotingSerializable.encode(config));
    }

    private static SubscriptionGroupConfig official(String group) {
        SubscriptionGroupConfig config = new SubscriptionGroupConfig();
        config.setGroupName(group);
        return config;
    }

    @Test
    void aGroupCreatedByTheAdminToolIsAnsweredAsItWasSent() throws Exception {
        SubscriptionGroupConfig sent = official("orders_cg");
        sent.setConsumeEnable(false);
        sent.setRetryQueueNums(3);
        sent.setRetryMaxTimes(4);
        sent.setConsumeMessageOrderly(true);
        sent.setWhichBrokerWhenConsumeSlowly(2);
        assertEquals(ResponseCode.SUCCESS, update(sent).code());

        RemotingCommand one = call(RequestCode.GET_SUBSCRIPTIONGROUP_CONFIG, Map.of("group", "orders_cg"), null);
        assertEquals(ResponseCode.SUCCESS, one.code());
        assertEquals(sent, RemotingSerializable.decode(one.body(), SubscriptionGroupConfig.class));

        RemotingCommand all = call(RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG, Map.of(), null);
        assertEquals(ResponseCode.SUCCESS, all.code());
        SubscriptionGroupWrapper wrapper = RemotingSerializable.decode(all.body(), SubscriptionGroupWrapper.class);
        assertEquals(sent, wrapper.getSubscriptionGroupTable().get("orders_cg"));
        assertEquals(official("TOOLS_CONSUMER"), wrapper.getSubscriptionGroupTable().get("TOOLS_CONSUMER"));
        assertEquals(1, wrapper.getDataVersion().getCounter().get());
        assertTrue(new String(all.body(), StandardCharsets.UTF_8).startsWith("{\"dataVersion\":{"), "fastjson's sorted order");

        sent.setConsumeEnable(true);
        assertEquals(ResponseCode.SUCCESS, update(sent).code());
        assertTrue(groups.get("orders_cg").orElseThrow().consumeEnable(), "an update replaces the group");
    }

    @Test
    void aGroupsReadOfATopicIsForbiddenAndAllowedAndAnsweredAsTheOfficialGroupForbidden() throws Exception {
        GroupForbidden asked = RemotingSerializable.decode(call(RequestCode.UPDATE_AND_GET_GROUP_FORBIDDEN,
            Map.of("group", "orders_cg", "topic", "Orders"), null).body(), GroupForbidden.class);
        assertEquals(true, asked.getReadable(), "without readable the request only asks");
        assertFalse(groups.isReadForbidden("orders_cg", "Orders"));

        RemotingCommand forbid = call(RequestCode.UPDATE_AND_GET_GROUP_FORBIDDEN,
            Map.of("group", "orders_cg", "topic", "Orders", "readable", "false"), null);
        assertEquals(ResponseCode.SUCCESS, forbid.code());
        GroupForbidden answer = RemotingSerializable.decode(forbid.body(), GroupForbidden.class);
        assertEquals("orders_cg", answer.getGroup());
        assertEquals("Orders", answer.getTopic());
        assertEquals(false, answer.getReadable());
        assertTrue(groups.isReadForbidden("orders_cg", "Orders"));

        call(RequestCode.UPDATE_AND_GET_GROUP_FORBIDDEN, Map.of("group", "orders_cg", "topic", "Orders", "readable", "true"),
            null);
        assertFalse(groups.isReadForbidden("orders_cg", "Orders"));
        assertEquals(ResponseCode.SYSTEM_ERROR, call(RequestCode.UPDATE_AND_GET_GROUP_FORBIDDEN,
            Map.of("group", "orders_cg"), null).code(), "the topic is required");
    }

    @Test
    void anUnknownGroupIsNotFound() throws Exception {
        RemotingCommand one = call(RequestCode.GET_SUBSCRIPTIONGROUP_CONFIG, Map.of("group", "nobody"), null);
        assertEquals(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, one.code());
        assertTrue(groups.get("nobody").isEmpty(), "asking does not create it");
    }

    @Test
    void deleteRemovesTheGroupAndOnlyWithCleanOffsetItsOffsets() throws Exception {
        update(official("a_cg"));
        update(official("b_cg"));
        offsets.commitOffset(null, "a_cg", "T", 0, 5);
        offsets.commitOffset(null, "b_cg", "T", 0, 7);

        assertEquals(ResponseCode.SUCCESS, call(RequestCode.DELETE_SUBSCRIPTIONGROUP,
            Map.of("groupName", "a_cg", "cleanOffset", "false"), null).code());
        assertTrue(groups.get("a_cg").isEmpty());
        assertEquals(5, offsets.queryOffset("a_cg", "T", 0));

        assertEquals(ResponseCode.SUCCESS, call(RequestCode.DELETE_SUBSCRIPTIONGROUP,
            Map.of("groupName", "b_cg", "cleanOffset", "true"), null).code());
        assertEquals(-1, offsets.queryOffset("b_cg", "T", 0));
        assertEquals(5, offsets.queryOffset("a_cg", "T", 0), "another group's offsets stay");

        assertEquals(ResponseCode.SUCCESS, call(RequestCode.DELETE_SUBSCRIPTIONGROUP, Map.of("groupName", "b_cg"), null)
            .code(), "deleting a missing group succeeds, as in RocketMQ");
        assertEquals(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
            call(RequestCode.GET_SUBSCRIPTIONGROUP_CONFIG, Map.of("group", "b_cg"), null).code());
    }

    @Test
    void badUpdatesAreRefusedWithTheirReason() throws Exception {
        RemotingCommand noBody = call(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, Map.of(), null);
        assertEquals(ResponseCode.SYSTEM_ERROR, noBody.code());

        RemotingCommand badName = update(official("bad group"));
        assertEquals(ResponseCode.SYSTEM_ERROR, badName.code());
        assertTrue(badName.remark().contains("illegal characters"), badName.remark());

        SubscriptionGroupConfig noRetryQueues = official("cg");
        noRetryQueues.setRetryQueueNums(0);
        assertTrue(update(noRetryQueues).remark().contains("must be positive"));

        SubscriptionGroupConfig attributed = official("cg");
        attributed.setAttributes(Map.of("+priority", "1"));
        RemotingCommand unsupported = update(attributed);
        assertEquals(ResponseCode.SYSTEM_ERROR, unsupported.code());
        assertEquals("unsupported key: priority", unsupported.remark());

        RemotingCommand notJson = call(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, Map.of(),
            "{groupName:".getBytes(StandardCharsets.UTF_8));
        assertEquals(ResponseCode.SYSTEM_ERROR, notJson.code());
        assertFalse(groups.get("cg").isPresent(), "nothing refused was recorded");

        assertEquals(ResponseCode.SYSTEM_ERROR, call(RequestCode.GET_SUBSCRIPTIONGROUP_CONFIG, Map.of(), null).code());
        assertEquals(ResponseCode.SYSTEM_ERROR, call(RequestCode.DELETE_SUBSCRIPTIONGROUP, Map.of(), null).code());
    }
}
