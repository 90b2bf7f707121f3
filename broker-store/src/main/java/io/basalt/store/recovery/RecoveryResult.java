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
 * @param skipped         corrupt ranges skipped under recoverySkipCorruptRecords, in log order (none without it)
 */
public record RecoveryResult(boolean crashRecovery, long scanStartOffset, long maxOffset, long recordsScanned,
                             long bytesDropped, String stopReason, java.util.List<SkippedRange> skipped) {

    public RecoveryResult {
        skipped = java.util.List.copyOf(skipped);
    }

    /** A result with nothing skipped. */
    public RecoveryResult(boolean crashRecovery, long scanStartOffset, long maxOffset, long recordsScanned,
                          long bytesDropped, String stopReason) {
        this(crashRecovery, scanStartOffset, maxOffset, recordsScanned, bytesDropped, stopReason, java.util.List.of());
    }

    /** The first skipped offset, or -1 when nothing was skipped. */
    public long firstSkippedOffset() {
        return skipped.isEmpty() ? -1 : skipped.get(0).from();
    }
}
