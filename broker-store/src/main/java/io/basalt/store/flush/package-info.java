/**
 * Making CommitLog appends durable, with RocketMQ's services and settings. A CommitLog holds one
 * {@link io.basalt.store.flush.FlushPolicy}: {@link io.basalt.store.flush.SyncFlushPolicy} (SYNC_FLUSH:
 * the {@link io.basalt.store.flush.GroupCommitService} with its {@link io.basalt.store.flush.FlushDiskWatcher}
 * for timeouts) or {@link io.basalt.store.flush.AsyncFlushPolicy} (ASYNC_FLUSH: the periodic
 * {@link io.basalt.store.flush.PeriodicWriteOutService} as flusher and, with a transient store pool, as
 * committer). The {@link io.basalt.store.flush.FailStop} latch turns the store read-only on the first I/O
 * error or unexpected error of one of these services. The services act on a
 * {@link io.basalt.store.flush.FlushTarget}, not on files, so each can be driven by a test.
 */
package io.basalt.store.flush;
