package io.basalt.broker.namesrv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.basalt.broker.processor.HAProtocolsProcessor;
import io.basalt.ha.ReplicaProtocol;
import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.ResponseCode;

/** What a slave makes of its master's answer to GET_HA_PROTOCOLS and of the NameServers' haServerAddr. */
class NameServerMasterLocatorTest {
    @Test
    void aBasaltMastersAnswerListsBothProtocols() throws Exception {
        RemotingCommand answer = new HAProtocolsProcessor().processRequest(null,
            RemotingCommand.request(HAProtocolsProcessor.GET_HA_PROTOCOLS)).get();
        assertEquals(EnumSet.of(ReplicaProtocol.BASALT, ReplicaProtocol.CLASSIC), NameServerMasterLocator.protocolsOf(answer));
    }

    @Test
    void requestCodeNotSupportedIsARocketMqMasterSpeakingClassic() {
        assertEquals(EnumSet.of(ReplicaProtocol.CLASSIC), NameServerMasterLocator.protocolsOf(
            RemotingCommand.response(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, "request type 10103 not supported")));
    }

    @Test
    void anotherErrorIsNoAnswer() {
        assertThrows(RuntimeException.class, () -> NameServerMasterLocator.protocolsOf(
            RemotingCommand.response(ResponseCode.SYSTEM_BUSY, "busy")));
    }

    @Test
    void unknownProtocolNamesAreSkipped() {
        RemotingCommand answer = RemotingCommand.response(ResponseCode.SUCCESS, null);
        answer.putExtField(HAProtocolsProcessor.PROTOCOLS, "SOMETHING_NEW,CLASSIC");
        assertEquals(EnumSet.of(ReplicaProtocol.CLASSIC), NameServerMasterLocator.protocolsOf(answer));
    }

    @Test
    void haServerAddrIsHostAndPort() {
        assertEquals(Optional.of(new InetSocketAddress("127.0.0.1", 10912)),
            NameServerMasterLocator.socketAddress("127.0.0.1:10912"));
        assertEquals(Optional.empty(), NameServerMasterLocator.socketAddress("127.0.0.1:0"));
        assertEquals(Optional.empty(), NameServerMasterLocator.socketAddress("nonsense"));
    }
}
