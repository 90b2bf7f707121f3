package io.basalt.store;

import java.util.List;


/**
 * Answer of {@link MessageStore#queryMessage}: the records whose topic and key match, newest first,
 * as held read-only slices; close it to release them.
 *
 * @param indexLastUpdateTimestamp end time of the newest index file
 * @param indexLastUpdatePhyOffset end CommitLog offset of the newest index file
 */
public record QueryMessageResult(List<SelectedBuffer> messages, long indexLastUpdateTimestamp,
                                 long indexLastUpdatePhyOffset) implements AutoCloseable {
    @Override
    public void close() {
        for (SelectedBuffer b : messages) {
            b.release();
        }
    }
}
