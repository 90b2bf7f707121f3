package io.basalt.broker.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ClientMetadataTest {
    private static String language(String header) {
        return new ClientMetadata("c", header, "1.0.8", "", null).languageName();
    }

    @Test
    void languagesOfTheSdksAreTheRemotingCodes() {
        assertEquals("JAVA", language("JAVA"));
        assertEquals("GO", language("go"));
        assertEquals("DOTNET", language(" DOTNET "));
        assertEquals("HTTP", language("HTTP"), "what the Node.js SDK 1.0.x sends");
    }

    @Test
    void aLanguageWithoutARemotingCodeIsOther() {
        // RocketMQ 5.2.0's admin tools read an unknown code back as no language at all
        assertEquals("OTHER", language("nodejs"));
        assertEquals("OTHER", language("NODE_JS"));
        assertEquals("OTHER", language("CLOJURE"));
        assertEquals("OTHER", language(""));
    }
}
