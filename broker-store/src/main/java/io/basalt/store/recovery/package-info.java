/**
 * Start-up recovery of the store: the {@code checkpoint} file, the {@code abort} marker and the scan
 * that finds the valid end of the CommitLog after a clean shutdown or a crash.
 */
package io.basalt.store.recovery;
