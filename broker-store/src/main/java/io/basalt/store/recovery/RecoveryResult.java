package io.basalt.store.recovery;

/**
 * What a CommitLog recovery found.
 *
 * @param crashRecovery   true when the abort marker said the last run did not shut down cleanly
 * @param scanStartOffset where the scan began (a file start); records from here were checked and dispatched
 * @param maxOffset       the recovered end of the log: the byte after the last valid record (or the end
 *                        of a file that closes with an END_OF_FILE marker); appends continue here
 * @param recordsScanned  valid records passed to the listener
 * @param bytesDropped    extent of the non-zero bytes found beyond {@code maxOffset} (looking up to
 *                        64 MiB into its file and each later one), which recovery cut away
 * @param stopReason      why the scan stopped (the first invalid record, or the end of the last file)
 */
public record RecoveryResult(boolean crashRecovery, long scanStartOffset, long maxOffset, long recordsScanned,
                             long bytesDropped, String stopReason) {
}
