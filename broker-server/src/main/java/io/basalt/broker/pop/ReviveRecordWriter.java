package io.basalt.broker.pop;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.basalt.store.BrokerMessage;
import io.basalt.store.MessageProperties;
import io.basalt.store.MessageStore;
import io.basalt.store.PutMessageResult;


/**
 * Writes CK, ACK and batch-ACK records into the revive topic as timer messages (tag and synthetic UNIQ_KEY as
 * RocketMQ writes them) and waits until each is stored: a pop is answered, and an ACK acknowledged, only once its
 * record is durable in the log. Thread-safe.
 */
final class ReviveRecordWriter {
    static final String TIMER_DELIVER_MS = "TIMER_DELIVER_MS";
    private static final long PUT_TIMEOUT_MS = 10_000;

    private final MessageStore store;
    private final String reviveTopic;
    private final InetSocketAddress storeHost;

    ReviveRecordWriter(MessageStore store, String reviveTopic, InetSocketAddress storeHost) {
        this.store = store;
        this.reviveTopic = reviveTopic;
        this.storeHost = storeHost;
    }

    /** Stores a CK, due one ackTimeInterval before its messages become visible again; null or the failure. */
    String writeCheckPoint(CheckPoint ck, int reviveQid) {
        return write(reviveQid, ck.toJson(), PopRecords.CK_TAG, ck.uniqKey(), ck.reviveTime() - PopRecords.ACK_TIME_INTERVAL,
            ck.popTime());
    }

    /** Stores an ACK, due when the message becomes visible again; null or the failure. */
    String writeAck(PopRecords.Ack ack, int reviveQid, long invisibleTime) {
        return write(reviveQid, ack.toJson(), PopRecords.ACK_TAG, ack.uniqKey(), ack.popTime() + invisibleTime,
            ack.popTime());
    }

    String writeBatchAck(PopRecords.BatchAck ack, int reviveQid, long invisibleTime) {
        return write(reviveQid, ack.toJson(), PopRecords.BATCH_ACK_TAG, ack.uniqKey(), ack.popTime() + invisibleTime,
            ack.popTime());
    }

    private String write(int reviveQid, String json, String tag, String uniqKey, long deliverMs, long bornTime) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put(MessageProperties.TAGS, tag);
        properties.put(MessageProperties.UNIQ_CLIENT_MESSAGE_ID_KEYIDX, uniqKey);
        properties.put(TIMER_DELIVER_MS, Long.toString(deliverMs));
        properties.put(MessageProperties.WAIT_STORE_MSG_OK, "true");
        BrokerMessage message = BrokerMessage.builder().topic(reviveTopic).queueId(reviveQid)
            .body(json.getBytes(StandardCharsets.UTF_8))
            .propertiesString(MessageProperties.toPropertiesString(properties))
            .bornTimestamp(bornTime).bornHost(storeHost).storeHost(storeHost).build();
        try {
            PutMessageResult result = store.asyncPutMessage(message).get(PUT_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            if (!result.status().isStored()) {
                return "storing the " + tag + " record failed: " + result.status()
                    + (result.reason() == null ? "" : ": " + result.reason());
            }
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while storing the " + tag + " record";
        } catch (ExecutionException | TimeoutException e) {
            return "storing the " + tag + " record failed: " + e;
        }
    }
}
