package io.basalt.broker.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.basalt.broker.auth.AuthModel.Acl;
import io.basalt.broker.auth.AuthModel.Decision;
import io.basalt.broker.auth.AuthModel.Policy;
import io.basalt.broker.auth.AuthModel.PolicyEntry;
import io.basalt.broker.auth.AuthModel.PolicyType;
import io.basalt.broker.auth.AuthModel.User;
import io.basalt.broker.auth.AuthModel.UserStatus;
import io.basalt.broker.auth.AuthModel.UserType;
import io.basalt.broker.config.BrokerConfiguration;

/**
 * gRPC calls checked by ACL 2.0 users and policies ({@link AccessControl#refuseCall}), signed as the 5.x SDKs sign:
 * authentication failures are told apart from missing permissions, and the messages name the user and the resource.
 * (ACL 1.0 accounts over the real interceptor: {@code MetadataInterceptorTest}.)
 */
class AccessControlGrpcTest {
    private static final InetSocketAddress CLIENT = new InetSocketAddress("10.1.2.3", 40000);

    @TempDir
    Path dir;

    private AccessControl access;
    private AuthCounters counters;

    @BeforeEach
    void users() throws Exception {
        Path config = dir.resolve("config");
        AuthStore store = AuthStore.open(config);
        store.putUser(new User("alice", "aliceSecret", UserType.NORMAL, UserStatus.ENABLE));
        store.mergeAcl(new Acl("User:alice", List.of(new Policy(PolicyType.CUSTOM, List.of(
            new PolicyEntry(AuthResource.parse("Topic:orders"), EnumSet.of(AuthAction.PUB), List.of(), Decision.ALLOW),
            new PolicyEntry(AuthResource.parse("Topic:events"), EnumSet.of(AuthAction.SUB), List.of(), Decision.ALLOW),
            new PolicyEntry(AuthResource.parse("Group:billing"), EnumSet.of(AuthAction.SUB), List.of(),
                Decision.ALLOW))))));
        counters = new AuthCounters();
        access = AccessControl.open(BrokerConfiguration.of(Map.of("authenticationEnabled", "true",
            "authorizationEnabled", "true")).security(), null, config, counters, System::currentTimeMillis);
    }

    private static Predicate<String> signedBy(String secret) throws Exception {
        String header = GrpcSignatureTest.sdkHeader("alice", secret, GrpcSignatureTest.DATE_TIME);
        String signature = GrpcSignature.parse(header).signature();
        return s -> GrpcSignature.verify(s, GrpcSignatureTest.DATE_TIME, signature);
    }

    @Test
    void aValidSignatureWithThePolicysPermissionPasses() throws Exception {
        assertEquals(Optional.empty(), access.refuseCall("SendMessage", "alice", signedBy("aliceSecret"),
            List.of(NeededResources.Need.topic("orders", Permission.PUB)), CLIENT));
        assertEquals(Optional.empty(), access.refuseCall("ReceiveMessage", "alice", signedBy("aliceSecret"),
            List.of(NeededResources.Need.group("billing"), NeededResources.Need.topic("events", Permission.SUB)), CLIENT));
        assertEquals(Optional.empty(), access.refuseCall("QueryRoute", "alice", signedBy("aliceSecret"),
            List.of(NeededResources.Need.topic("events", Permission.ANY)), CLIENT), "a route needs PUB or SUB");
        assertEquals(3L, counters.allowed());
    }

    @Test
    void aMissingPermissionIsNotAnAuthenticationFailure() throws Exception {
        Optional<AccessControl.CallRefusal> r = access.refuseCall("SendMessage", "alice", signedBy("aliceSecret"),
            List.of(NeededResources.Need.topic("events", Permission.PUB)), CLIENT);
        assertTrue(r.isPresent());
        assertFalse(r.get().unauthenticated());
        assertTrue(r.get().message().contains("alice") && r.get().message().contains("Topic:events")
            && r.get().message().contains("SendMessage"), r.get().message());
        assertEquals(1L, counters.denied().get("v2/no_permission"));
    }

    @Test
    void aWrongPasswordAnUnknownUserOrNoCredentialIsUnauthenticated() throws Exception {
        List<NeededResources.Need> orders = List.of(NeededResources.Need.topic("orders", Permission.PUB));
        Optional<AccessControl.CallRefusal> wrong = access.refuseCall("SendMessage", "alice", signedBy("otherSecret"),
            orders, CLIENT);
        assertTrue(wrong.orElseThrow().unauthenticated());
        assertTrue(wrong.get().message().contains("accessKey alice"), wrong.get().message());
        assertTrue(access.refuseCall("SendMessage", "bob", signedBy("aliceSecret"), orders, CLIENT).orElseThrow()
            .unauthenticated());
        assertTrue(access.refuseCall("SendMessage", null, s -> false, orders, CLIENT).orElseThrow().unauthenticated());
        assertEquals(Map.of("v2/bad_signature", 1L, "v2/unknown_user", 1L, "v2/no_credentials", 1L), counters.denied());
    }
}
