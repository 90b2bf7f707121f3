package io.basalt.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Splits the body of a batch send (RocketMQ's {@code MessageBatch}, as the client's
 * {@code MessageDecoder.encodeMessages} writes it) into one {@link BrokerMessage} per inner message;
 * the store then appends each as a record of its own. Each inner message is:
 *
 * <pre>
 *  TOTALSIZE (4) | MAGICCODE (4, unused) | BODYCRC (4, unused) | FLAG (4) | BODY length (4) + body
 *  | PROPERTIES length (2) + properties
 * </pre>
 *
 * As RocketMQ's broker does, the batch's own properties are appended to every inner message's
 * (with a separator when the inner properties do not end with one). Stateless.
 */
public final class MessageBatchDecoder {
    private static final int INNER_HEADER = 4 + 4 + 4 + 4 + 4;

    private MessageBatchDecoder() {
    }

    /**
     * @param batchBody        the request body, read from its position to its limit (not moved)
     * @param batchProperties  the batch message's properties string (may be empty)
     * @param commonFields     sets the fields every inner message shares (topic, queueId, hosts,
     *                         bornTimestamp, sysFlag, reconsumeTimes) on each inner builder
     * @throws IllegalArgumentException naming the inner message and what is wrong, if the body is malformed
     */
    public static List<BrokerMessage> decode(ByteBuffer batchBody, String batchProperties,
                                             Consumer<BrokerMessage.Builder> commonFields) {
        ByteBuffer b = batchBody.duplicate();
        String suffix = batchProperties == null ? "" : batchProperties;
        List<BrokerMessage> out = new ArrayList<>();
        while (b.hasRemaining()) {
            int index = out.size();
            int start = b.position();
            if (b.remaining() < INNER_HEADER) {
                throw new IllegalArgumentException("batch message " + index + ": " + b.remaining()
                    + " bytes left, shorter than a message header");
            }
            int totalSize = b.getInt();
            b.getInt();
            b.getInt();
            int flag = b.getInt();
            int bodyLength = b.getInt();
            if (totalSize < INNER_HEADER + 2 || totalSize > b.limit() - start) {
                throw new IllegalArgumentException("batch message " + index + ": total size " + totalSize
                    + " outside the batch");
            }
            int end = start + totalSize;
            if (bodyLength < 0 || bodyLength > end - b.position() - 2) {
                throw new IllegalArgumentException("batch message " + index + ": body length " + bodyLength
                    + " outside the message");
            }
            byte[] body = new byte[bodyLength];
            b.get(body);
            int propertiesLength = b.getShort();
            if (propertiesLength < 0 || b.position() + propertiesLength != end) {
                throw new IllegalArgumentException("batch message " + index + ": properties length "
                    + propertiesLength + " does not end the message at its total size " + totalSize);
            }
            byte[] properties = new byte[propertiesLength];
            b.get(properties);
            String inner = new String(properties, StandardCharsets.UTF_8);
            BrokerMessage.Builder builder = BrokerMessage.builder().flag(flag).body(body)
                .propertiesString(join(inner, suffix));
            commonFields.accept(builder);
            out.add(builder.build());
        }
        return out;
    }

    private static String join(String inner, String batch) {
        if (batch.isEmpty()) {
            return inner;
        }
        if (inner.isEmpty() || inner.charAt(inner.length() - 1) == MessageProperties.PROPERTY_SEPARATOR) {
            return inner + batch;
        }
        return inner + MessageProperties.PROPERTY_SEPARATOR + batch;
    }
}
