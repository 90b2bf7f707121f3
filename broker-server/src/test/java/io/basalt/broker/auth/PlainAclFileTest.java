package io.basalt.broker.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** RocketMQ's plain_acl.yml, read with every rule checked and the line of what breaks one. */
class PlainAclFileTest {
    static final String SAMPLE = """
        globalWhiteRemoteAddresses:
          - 10.10.103.*
        accounts:
          - accessKey: orderProducer
            secretKey: s3cretOrders
            admin: false
            defaultTopicPerm: DENY
            defaultGroupPerm: SUB
            topicPerms:
              - orders=PUB
              - audit=PUB|SUB
            groupPerms:
              - billing=SUB
              - "%RETRY%refunds=DENY"
          - accessKey: opsAdmin
            secretKey: opsSecret99
            whiteRemoteAddress: 192.168.1.*
            admin: true
        dataVersion:
          - counter: 3
            timestamp: 1700000000000
        """;

    @TempDir
    Path dir;

    @Test
    void readsRocketMqsSample() {
        PlainAclFile file = PlainAclFile.parse(dir.resolve("plain_acl.yml"), SAMPLE);
        assertEquals(List.of("10.10.103.*"), file.globalWhiteRemoteAddresses());
        assertEquals(2, file.accounts().size());
        PlainAccount producer = file.accounts().get(0);
        assertEquals("orderProducer", producer.accessKey());
        assertFalse(producer.admin());
        assertEquals(Permission.PUB, producer.topicPermission("orders"));
        assertEquals((byte) (Permission.PUB | Permission.SUB), producer.topicPermission("audit"));
        assertEquals(Permission.DENY, producer.topicPermission("other"), "default DENY");
        assertEquals(Permission.SUB, producer.groupPermission("anyGroup"), "default SUB");
        assertEquals(Permission.DENY, producer.groupPermission("refunds"), "a %RETRY% entry is its group's");
        PlainAccount ops = file.accounts().get(1);
        assertTrue(ops.admin());
        assertTrue(ops.whiteRemoteAddress().matches("192.168.1.9"));
        assertEquals(new PlainAclFile.DataVersion(3, 1700000000000L), file.dataVersion());
        assertFalse(producer.toString().contains("s3cretOrders"), "no secret in a log line");
    }

    @Test
    void writesWhatItReads() throws Exception {
        PlainAclFile file = PlainAclFile.parse(dir.resolve("plain_acl.yml"), SAMPLE);
        file.write();
        PlainAclFile again = PlainAclFile.read(dir.resolve("plain_acl.yml"));
        assertEquals(file.accounts(), again.accounts());
        assertEquals(file.globalWhiteRemoteAddresses(), again.globalWhiteRemoteAddresses());
        assertEquals(file.dataVersion(), again.dataVersion());
    }

    @Test
    void everyBrokenRuleNamesTheFileAndLine() {
        assertBroken("accounts:\n  - accessKey: short\n    secretKey: longEnough1\n", ":2:", "at least 7");
        assertBroken("accounts:\n  - accessKey: longEnough\n    secretKey: abc\n", ":3:", "secretKey has 3 characters");
        assertBroken("accounts:\n  - accessKey: longEnough\n    secretKey: longEnough1\n    defaultTopicPerm: pub\n",
            ":4:", "not one of DENY, PUB, SUB");
        assertBroken("accounts:\n  - accessKey: longEnough\n    secretKey: longEnough1\n    topicPerms:\n      - orders\n",
            ":5:", "not name=PERM");
        assertBroken("accounts:\n  - accessKey: longEnough\n    secretKey: longEnough1\n    secretkey: typo\n", ":4:",
            "unknown key 'secretkey'");
        assertBroken("globalWhiteRemoteAddresses:\n  - *\n", ":2:", "write \"*\"");
        assertBroken("globalWhiteRemoteAddresses:\n  - broker.example.com\n", ":2:", "host names are not accepted");
        assertBroken("accounts:\n  - accessKey: longEnough\n    secretKey: longEnough1\n  - accessKey: longEnough\n"
            + "    secretKey: longEnough2\n", ":4:", "defined twice");
        assertBroken("accounts:\n  - accessKey: longEnough\n    secretKey: longEnough1\n    admin: yes please\n", ":4:",
            "not true or false");
        assertBroken("accounts: [\n", "plain_acl.yml", "not valid YAML");
    }

    @Test
    void anEmptyFileHasNothing() {
        PlainAclFile file = PlainAclFile.parse(dir.resolve("plain_acl.yml"), "");
        assertTrue(file.accounts().isEmpty());
        assertTrue(file.globalWhiteRemoteAddresses().isEmpty());
    }

    private void assertBroken(String yaml, String line, String reason) {
        AclConfigException e = assertThrows(AclConfigException.class,
            () -> PlainAclFile.parse(dir.resolve("plain_acl.yml"), yaml), yaml);
        assertTrue(e.getMessage().contains("plain_acl.yml") && e.getMessage().contains(line)
            && e.getMessage().contains(reason), e.getMessage());
        assertFalse(e.getMessage().contains("longEnough1"), "no secret in the error: " + e.getMessage());
    }
}
