package io.basalt.broker.pop;

import io.basalt.remoting.protocol.ResponseCode;

/** The answer to an ACK, batch ACK or refused request: a RocketMQ response code and remark. */
public record PopOutcome(int code, String remark) {
    public static final PopOutcome OK = new PopOutcome(ResponseCode.SUCCESS, null);

    public boolean isSuccess() {
        return code == ResponseCode.SUCCESS;
    }
}
