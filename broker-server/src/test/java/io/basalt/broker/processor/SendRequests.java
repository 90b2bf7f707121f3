package io.basalt.broker.processor;

import io.basalt.remoting.protocol.RemotingCommand;
import io.basalt.remoting.protocol.RequestCode;

/** SEND_MESSAGE_V2 requests as an official producer sends them (its one-letter header fields), for tests. */
public final class SendRequests {
    private SendRequests() {
    }

    /** A send to queue 0 of {@code topic} from producer group "pg", with wire-form {@code properties}. */
    public static RemotingCommand sendV2(String topic, String properties, byte[] body) {
        RemotingCommand r = RemotingCommand.request(RequestCode.SEND_MESSAGE_V2);
        r.putExtField("a", "pg");
        r.putExtField("b", topic);
        r.putExtField("c", "TBW102");
        r.putExtField("d", "4");
        r.putExtField("e", "0");
        r.putExtField("f", "0");
        r.putExtField("g", Long.toString(System.currentTimeMillis()));
        r.putExtField("h", "0");
        r.putExtField("i", properties);
        r.setBody(body);
        return r;
    }
}
