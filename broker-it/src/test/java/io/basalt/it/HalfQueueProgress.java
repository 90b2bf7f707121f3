package io.basalt.it;

import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.header.GetMaxOffsetRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.QueryConsumerOffsetRequestHeader;

/**
 * Where a broker's transaction check scan stands, asked over the wire as any RocketMQ admin would (so it reads a
 * Basalt and a RocketMQ 5.2.0 broker alike): the half queue's end ({@code RMQ_SYS_TRANS_HALF_TOPIC} queue 0, GET_MAX_OFFSET),
 * the scan's progress in it (group {@code CID_RMQ_SYS_TRANS}'s offset, QUERY_CONSUMER_OFFSET; none yet reads as 0),
 * and how many op markers ({@code RMQ_SYS_TRANS_OP_HALF_TOPIC} queue 0) are written. When the scan offset reaches
 * the half queue's end, the broker has nothing left to check: every half message (and check copy) is decided.
 */
public final class HalfQueueProgress implements AutoCloseable {
    public static final String HALF_TOPIC = "RMQ_SYS_TRANS_HALF_TOPIC";
    public static final String OP_HALF_TOPIC = "RMQ_SYS_TRANS_OP_HALF_TOPIC";
    public static final String SCAN_GROUP = "CID_RMQ_SYS_TRANS";

    private final NettyRemotingClient remoting;
    private final String brokerAddr;

    public HalfQueueProgress(String brokerAddr) {
        this.brokerAddr = brokerAddr;
        this.remoting = new NettyRemotingClient(new NettyClientConfig());
        remoting.start();
    }

    /** The next offset of the half queue (records written so far). */
    public long halfEnd() throws Exception {
        return maxOffset(HALF_TOPIC);
    }

    /** The op markers written so far. */
    public long opMarkers() throws Exception {
        return maxOffset(OP_HALF_TOPIC);
    }

    /** The check scan's next half offset (0 while the broker has none). */
    public long scanOffset() throws Exception {
        QueryConsumerOffsetRequestHeader header = new QueryConsumerOffsetRequestHeader();
        header.setConsumerGroup(SCAN_GROUP);
        header.setTopic(HALF_TOPIC);
        header.setQueueId(0);
        header.setSetZeroIfNotFound(false);
        RemotingCommand answer = remoting.invokeSync(brokerAddr,
            RemotingCommand.createRequestCommand(RequestCode.QUERY_CONSUMER_OFFSET, header), 10_000);
        if (answer.getCode() == ResponseCode.QUERY_NOT_FOUND) {
            return 0;
        }
        if (answer.getCode() != ResponseCode.SUCCESS) {
            throw new IllegalStateException("QUERY_CONSUMER_OFFSET " + SCAN_GROUP + " answered " + answer.getCode() + " "
                + answer.getRemark());
        }
        return Long.parseLong(answer.getExtFields().get("offset"));
    }

    /** Half records the scan has not passed yet; 0 when every transaction is decided. */
    public long unscanned() throws Exception {
        return halfEnd() - scanOffset();
    }

    /** {@code end=<half end> scan=<scan offset> ops=<op markers>}, for a failure message; never throws. */
    public String describe() {
        try {
            return "half end=" + halfEnd() + " scan=" + scanOffset() + " op markers=" + opMarkers();
        } catch (Exception e) {
            return "half queue progress unreadable: " + e;
        }
    }

    private long maxOffset(String topic) throws Exception {
        GetMaxOffsetRequestHeader header = new GetMaxOffsetRequestHeader();
        header.setTopic(topic);
        header.setQueueId(0);
        RemotingCommand answer = remoting.invokeSync(brokerAddr,
            RemotingCommand.createRequestCommand(RequestCode.GET_MAX_OFFSET, header), 10_000);
        if (answer.getCode() != ResponseCode.SUCCESS) {
            throw new IllegalStateException("GET_MAX_OFFSET " + topic + " answered " + answer.getCode() + " " + answer.getRemark());
        }
        return Long.parseLong(answer.getExtFields().get("offset"));
    }

    @Override
    public void close() {
        remoting.shutdown();
    }
}
