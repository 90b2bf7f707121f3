package io.basalt.broker.processor;

/** RocketMQ response codes the broker answers with that {@code io.basalt.remoting.protocol.ResponseCode} lacks. */
final class BrokerResponseCode {
    /** RocketMQ's ResponseCode.INVALID_PARAMETER: a bad topic name, queue id or header value. */
    static final int INVALID_PARAMETER = 29;

    private BrokerResponseCode() {
    }
}
