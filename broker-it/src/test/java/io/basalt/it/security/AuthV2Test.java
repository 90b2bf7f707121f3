package io.basalt.it.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.remoting.RPCHook;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.it.BrokerProcess;
import io.basalt.it.Clients;

/**
 * ACL 2.0 (RocketMQ 5.3's keys) against a broker process: a 5.3 broker.conf with authentication and authorization
 * on starts, the bootstrap user administers users and ACLs with the AUTH codes (sent as RocketMQ 5.3's mqadmin sends
 * them, signed by the official client's hook), a Normal user's sends follow its policy and are refused with
 * NO_PERMISSION (16) otherwise, and no answer carries a password.
 */
class AuthV2Test {
    private static final String ROOT = "{\"username\":\"rocketmq\",\"password\":\"12345678\"}";

    @TempDir
    Path dir;

    private static RPCHook hook(String user, String password) {
        return new AclClientRPCHook(new SessionCredentials(user, password));
    }

    private static RemotingCommand call(NettyRemotingClient client, String addr, int code, Map<String, String> fields,
                                        String body) throws Exception {
        RemotingCommand request = RemotingCommand.createRequestCommand(code, null);
        fields.forEach(request::addExtField);
        if (body != null) {
            request.setBody(body.getBytes(StandardCharsets.UTF_8));
        }
        return client.invokeSync(addr, request, 5000);
    }

    @Test
    void aRocketMq53ConfigurationWithAuthenticationAndAuthorizationWorks() throws Exception {
        Map<String, String> conf = Map.of(
            "authenticationEnabled", "true",
            "authenticationProvider", "org.apache.rocketmq.auth.authentication.provider.DefaultAuthenticationProvider",
            "authenticationMetadataProvider",
            "org.apache.rocketmq.auth.authentication.provider.LocalAuthenticationMetadataProvider",
            "authorizationEnabled", "true",
            "authorizationProvider", "org.apache.rocketmq.auth.authorization.provider.DefaultAuthorizationProvider",
            "authorizationMetadataProvider",
            "org.apache.rocketmq.auth.authorization.provider.LocalAuthorizationMetadataProvider",
            "initAuthenticationUser", ROOT);
        try (BrokerProcess broker = BrokerProcess.create(dir.resolve("b"), conf)) {
            broker.start();
            NettyRemotingClient admin = new NettyRemotingClient(new NettyClientConfig());
            admin.registerRPCHook(hook("rocketmq", "12345678"));
            admin.start();
            NettyRemotingClient normal = new NettyRemotingClient(new NettyClientConfig());
            normal.registerRPCHook(hook("alice", "aliceSecret"));
            normal.start();
            try {
                String addr = broker.address();
                assertEquals(0, call(admin, addr, 3001, Map.of("username", "alice"),
                    "{\"username\":\"alice\",\"password\":\"aliceSecret\",\"userType\":\"Normal\"}").getCode());
                assertEquals(16, call(admin, addr, 3001, Map.of("username", "alice"),
                    "{\"username\":\"alice\",\"password\":\"again\"}").getCode(), "The user is existed");
                assertEquals(0, call(admin, addr, 3006, Map.of("subject", "User:alice"),
                    "{\"subject\":\"User:alice\",\"policies\":[{\"policyType\":\"Custom\",\"entries\":["
                        + "{\"resource\":\"Topic:orders*\",\"actions\":[\"Pub\"],\"decision\":\"Allow\"}]}]}").getCode());
                RemotingCommand user = call(admin, addr, 3004, Map.of("username", "alice"), null);
                assertEquals(0, user.getCode());
                String userJson = new String(user.getBody(), StandardCharsets.UTF_8);
                assertTrue(userJson.contains("\"username\":\"alice\"") && !userJson.contains("aliceSecret"),
                    "no password in the answer: " + userJson);
                RemotingCommand acl = call(admin, addr, 3009, Map.of("subject", "User:alice"), null);
                assertTrue(new String(acl.getBody(), StandardCharsets.UTF_8).contains("Topic:orders*"));

                // a Normal user cannot create users (an admin code), nor a Super user
                RemotingCommand refused = call(normal, addr, 3001, Map.of("username", "mallory"),
                    "{\"username\":\"mallory\",\"password\":\"mallory1\",\"userType\":\"Super\"}");
                assertEquals(16, refused.getCode(), refused.getRemark());
            } finally {
                admin.shutdown();
                normal.shutdown();
            }

            admin(broker);
            DefaultMQProducer alice = new DefaultMQProducer("pg-alice", hook("alice", "aliceSecret"));
            alice.setNamesrvAddr(broker.address());
            alice.setInstanceName(Clients.instanceName());
            alice.setRetryTimesWhenSendFailed(0);
            alice.start();
            try {
                assertEquals(SendStatus.SEND_OK, alice.send(new Message("orders-eu", "x".getBytes(StandardCharsets.UTF_8)))
                    .getSendStatus());
                Exception thrown = org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                    () -> alice.send(new Message("payments", "x".getBytes(StandardCharsets.UTF_8))));
                Throwable t = thrown;
                while (t != null && !(t instanceof MQBrokerException)) {
                    t = t.getCause();
                }
                assertTrue(t instanceof MQBrokerException, "not the broker's refusal: " + thrown);
                MQBrokerException e = (MQBrokerException) t;
                assertEquals(16, e.getResponseCode());
                assertTrue(e.getErrorMessage().contains("User:alice has no permission to access Topic:payments"),
                    e.getErrorMessage());
            } finally {
                alice.shutdown();
            }
            String users = Files.readString(broker.storeDir().resolve("config/authUsers.json"));
            assertTrue(users.contains("alice") && users.contains("rocketmq"), users);
            assertFalse(Files.readString(broker.dir().resolve("logs/broker.log")).contains("aliceSecret"),
                "no password in the log");
        }
    }

    /** Creates the topics the sends use, as the bootstrap (Super) user. */
    private static void admin(BrokerProcess broker) throws Exception {
        org.apache.rocketmq.tools.admin.DefaultMQAdminExt admin =
            new org.apache.rocketmq.tools.admin.DefaultMQAdminExt(hook("rocketmq", "12345678"), 5000);
        admin.setNamesrvAddr(broker.address());
        admin.setInstanceName(Clients.instanceName());
        admin.start();
        try {
            for (String topic : new String[] {"orders-eu", "payments"}) {
                admin.createTopic("TBW102", topic, 4, Map.of());
            }
        } finally {
            admin.shutdown();
        }
    }
}
