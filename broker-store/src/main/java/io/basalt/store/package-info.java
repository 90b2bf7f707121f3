/** The message store: CommitLog, mapped files, flushing, consume queues, index and recovery. No network code. */
package io.basalt.store;
