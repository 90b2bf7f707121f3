/**
 * Making CommitLog appends durable, with RocketMQ's services and settings: {@link
 * io.basalt.store.flush.FlushRealTimeService} (ASYNC_FLUSH), {@link io.basalt.store.flush.GroupCommitService}
 * with its {@link io.basalt.store.flush.FlushDiskWatcher} (SYNC_FLUSH group commit and timeouts),
 * {@link io.basalt.store.flush.CommitRealTimeService} (transient store pool) and the {@link
 * io.basalt.store.flush.FailStop} latch that turns the store read-only on the first I/O error. The services
 * act on a {@link io.basalt.store.flush.FlushTarget}, not on files, so each can be driven by a test.
 */
package io.basalt.store.flush;
