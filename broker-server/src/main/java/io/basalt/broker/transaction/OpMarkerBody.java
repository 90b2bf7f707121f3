package io.basalt.broker.transaction;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The body of an op ("done") marker in {@code RMQ_SYS_TRANS_OP_HALF_TOPIC}: the half-queue offsets it marks as
 * decided, in ASCII. RocketMQ 5.x writes each offset followed by a comma ({@code "17,18,21,"}, many per marker);
 * 4.9 writes one bare offset per marker ({@code "17"}). Both are read; the 5.x form is written.
 */
public final class OpMarkerBody {

    private OpMarkerBody() {
    }

    /**
     * The offsets in a marker body, in order. Blank pieces are skipped; a piece that is not a number makes the
     * whole body unreadable ({@link IllegalArgumentException} naming it), as no RocketMQ version writes one.
     */
    public static List<Long> parse(byte[] body) {
        List<Long> offsets = new ArrayList<>();
        if (body == null) {
            return offsets;
        }
        for (String piece : new String(body, StandardCharsets.US_ASCII).split(",")) {
            String trimmed = piece.strip();
            if (trimmed.isEmpty()) {
                continue;
            }
            try {
                offsets.add(Long.parseLong(trimmed));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("op marker body piece '" + trimmed + "' is not a half-queue offset");
            }
        }
        return offsets;
    }

    /** The 5.x body for these offsets: each followed by a comma. */
    public static byte[] format(List<Long> halfQueueOffsets) {
        StringBuilder sb = new StringBuilder(halfQueueOffsets.size() * 8);
        for (long offset : halfQueueOffsets) {
            sb.append(offset).append(',');
        }
        return sb.toString().getBytes(StandardCharsets.US_ASCII);
    }
}
