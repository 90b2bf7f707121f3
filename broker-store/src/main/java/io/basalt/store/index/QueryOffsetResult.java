package io.basalt.store.index;

import java.util.List;

/**
 * Answer of an index lookup.
 *
 * @param physicalOffsets                CommitLog offsets of the candidate messages, newest first, without
 *                                  duplicates; hash collisions are possible, so compare the keys
 * @param indexLastUpdateTimestamp  end timestamp of the newest index file (0 if none)
 * @param indexLastUpdatePhyOffset  end CommitLog offset of the newest index file (0 if none)
 */
public record QueryOffsetResult(List<Long> physicalOffsets, long indexLastUpdateTimestamp, long indexLastUpdatePhyOffset) {
}
