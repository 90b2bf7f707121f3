package io.basalt.remoting.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class UnsupportedRequestCodesTest {

    @Test
    void aKnownRocketMqCodeNamesTheMissingFeature() {
        assertEquals(" request type 513 not supported: Basalt does not implement static topics (logic queues mapped"
            + " across brokers)", UnsupportedRequestCodes.remark(513));
        assertEquals(" request type 902 not supported: Basalt does not implement the broker container (several brokers"
            + " in one process)", UnsupportedRequestCodes.remark(902));
        assertEquals(" request type 2003 not supported: Basalt does not implement cold data flow control (tiered"
            + " storage)", UnsupportedRequestCodes.remark(2003));
    }

    @Test
    void anUnknownCodeKeepsRocketMqsWording() {
        assertEquals(" request type 9999 not supported", UnsupportedRequestCodes.remark(9999));
    }
}
