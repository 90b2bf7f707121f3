package io.basalt.store.recovery;

import java.io.IOException;

import io.basalt.store.index.IndexService;
import io.basalt.store.queue.ConsumeQueueStore;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings the ConsumeQueues and the index in line with the recovered CommitLog at start-up, and says
 * where the dispatcher must resume so that whatever they miss is dispatched again. The queues and the
 * index are caches of the log (docs/pain-points.md#pp-16): deleting {@code consumequeue/} and {@code index/}
 * rebuilds them from the CommitLog's first offset.
 *
 * <ol>
 *   <li>Every queue is scanned: its end is the first invalid (or backwards) entry; the rest is cut.
 *       A queue cut at damaged (non-zero) entries pulls the resume point back to its own end.</li>
 *   <li>Entries pointing at or beyond the CommitLog's recovered end are dropped (the log was cut
 *       behind the queues); so are the newest index files holding such keys.</li>
 *   <li>Each queue's min offset moves past entries whose records are below the CommitLog's min.</li>
 *   <li>The dispatcher resumes at the lowest of: the end of the queues' newest entry, the end of a
 *       repaired queue, and the last
 *       indexed record (the CommitLog's min offset when the index is empty or absent), never below
 *       the CommitLog's min. Re-dispatched records the queues or the index already hold are skipped,
 *       and a queue that lost its tail is refilled by the dispatcher's gap rewind.</li>
 * </ol>
 * Runs once on the start-up thread, after CommitLog recovery and before the dispatcher starts.
 */
public final class ConsumeQueueRecovery {
    private static final Logger LOG = LoggerFactory.getLogger(ConsumeQueueRecovery.class);

    private ConsumeQueueRecovery() {
    }

    /**
     * @param index           null when indexing is off
     * @param commitLogMin    the CommitLog's first offset (0 for an empty log)
     * @param commitLogEnd    the CommitLog's recovered end
     * @return the offset the dispatcher resumes from
     */
    public static long recover(ConsumeQueueStore queues, IndexService index, long commitLogMin, long commitLogEnd)
            throws IOException {
        ConsumeQueueStore.Recovered recovered = queues.recover();
        long queuesEnd = recovered.maxPhysicalOffset();
        if (queuesEnd > commitLogEnd) {
            LOG.warn("ConsumeQueues point up to CommitLog offset {} but the log ends at {}: truncating them", queuesEnd, commitLogEnd);
            queues.truncateByMaxPhysicOffset(commitLogEnd);
            queuesEnd = queues.maxPhysicalOffset();
        }
        queues.correctMinOffsets(commitLogMin);
        long resume = Math.min(Math.min(queuesEnd, recovered.minPhysicOffsetRepaired()), commitLogEnd);
        if (index != null) {
            index.truncateByMaxPhysicOffset(commitLogEnd);
            long indexResume = index.resumeOffset();
            resume = Math.min(resume, indexResume < 0 ? commitLogMin : indexResume);
        }
        resume = Math.max(resume, commitLogMin);
        LOG.info("ConsumeQueues recovered: {} queues, dispatch resumes at CommitLog offset {} (log [{}, {}))",
                queues.allQueues().size(), resume, commitLogMin, commitLogEnd);
        return resume;
    }
}
